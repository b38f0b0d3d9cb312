package mcptest_test

import (
	"errors"
	"github.com/looprig/mcp/internal/testkit"
	"slices"
	"strings"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/server"
)

// Every helper that serves a fake refuses at once, as
// its path's rule says (fakeserver.CheckPath), every fault kind it cannot
// act on, and no other: a fault it took would be left undone.
func TestEveryHelperRefusesTheFaultsItCannotAct(t *testing.T) {
	mcptest.LeakCheck(t)
	helpers := []struct {
		name  string
		path  fakeserver.Path
		start func(testing.TB, []fakeserver.Fault)
	}{
		{"InProcess", fakeserver.Path{}, func(tb testing.TB, fs []fakeserver.Fault) {
			mcptest.InProcess(tb, &mcptest.InProcessOptions{Catalog: fakeserver.CatalogRich, Faults: fs})
		}},
		{"Wrap", fakeserver.Path{}, func(tb testing.TB, fs []fakeserver.Fault) {
			mcptest.Wrap(tb, docsServer(tb), &mcptest.WrapOptions{Faults: fs})
		}},
		{"Stdio", fakeserver.Path{Child: true}, func(tb testing.TB, fs []fakeserver.Fault) {
			mcptest.Stdio(tb, &mcptest.StdioOptions{Catalog: fakeserver.CatalogRich, Faults: fs})
		}},
		{"HTTP", fakeserver.Path{HTTP: true}, func(tb testing.TB, fs []fakeserver.Fault) {
			mcptest.HTTP(tb, &mcptest.HTTPOptions{Catalog: fakeserver.CatalogRich, Faults: fs})
		}},
		{"WrapHTTP", fakeserver.Path{HTTP: true}, func(tb testing.TB, fs []fakeserver.Fault) {
			mcptest.WrapHTTP(tb, docsServer(tb), &mcptest.WrapHTTPOptions{Faults: fs})
		}},
	}
	held, run := 0, 0
	for _, s := range testkit.OneFaultOfEachKind {
		f, err := fakeserver.ParseFault(s)
		if errors.Is(err, errors.ErrUnsupported) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range helpers {
			run++
			t.Run(h.name+"/"+s, func(t *testing.T) {
				r := &recT{TB: t}
				failures := r.run(func(tb testing.TB) { h.start(tb, []fakeserver.Fault{f}) })
				if checkRefusal(t, f, h.path, failures) {
					held++
				}
			})
		}
	}
	t.Logf("faults × helpers: %d held of %d run", held, run)
}

// checkRefusal reports whether failures refuse f as a fault that does not
// act on p exactly when it does not, and fails t otherwise. A wrapped
// server refuses env and the task kinds for reasons of its own.
func checkRefusal(t *testing.T, f fakeserver.Fault, p fakeserver.Path, failures []string) bool {
	t.Helper()
	refused := slices.ContainsFunc(failures, func(s string) bool { return strings.Contains(s, "does not act") })
	want := !f.ActsOn(p)
	other := len(failures) > 0 && !refused && !wrapRefuses(failures[0])
	if refused != want || other {
		t.Errorf("fault %q %v: refused %v (failures %q), want refused %v", f, p, refused, failures, want)
		return false
	}
	return true
}

// docsServer returns a server with the docs catalog's tools, to wrap.
func docsServer(tb testing.TB) *server.Server {
	tb.Helper()
	fs, err := fakeserver.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return fs.Server()
}

// wrapRefuses reports whether failure is Wrap's own refusal of a fault
// that adds or runs tools of the fake's catalog.
func wrapRefuses(failure string) bool {
	return strings.Contains(failure, "a wrapped server's tools are its own") || strings.Contains(failure, "a wrapped server's skills are its own") || strings.Contains(failure, "not to a wrapped server")
}
