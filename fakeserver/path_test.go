package fakeserver

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// The paths a fake server can be served by, as the table names them.
var tablePaths = map[string]Path{
	"in-process": {},
	"http":       {HTTP: true},
	"sse":        {HTTP: true, SSE: true},
	"stdio":      {Child: true},
	"http-child": {HTTP: true, Child: true},
	"sse-child":  {HTTP: true, SSE: true, Child: true},
}

// actsOn is the table: the paths each kind acts on, written out here and
// not derived from Fault.ActsOn.
func actsOn(k FaultKind) []string {
	all := []string{"http", "http-child", "in-process", "sse", "sse-child", "stdio"}
	switch k {
	case FaultCrash, FaultFloodStderr, FaultIgnoreSIGTERM, FaultGrandchild:
		return []string{"http-child", "sse-child", "stdio"}
	case FaultMalformed, FaultIgnoreEOF:
		return []string{"stdio"}
	case FaultDrop, FaultDropNoID:
		return []string{"http", "http-child"}
	case FaultForeignEndpoint:
		return []string{"sse", "sse-child"}
	case FaultDelayHeaders, FaultUnauthorized, FaultForbidden, FaultGone, FaultServerError, FaultNoGet, FaultRedirect:
		return []string{"http", "http-child", "sse", "sse-child"}
	}
	return all
}

func parseEach(t *testing.T) []Fault {
	t.Helper()
	var out []Fault
	seen := map[FaultKind]bool{}
	for _, s := range testkit.OneFaultOfEachKind {
		f, err := ParseFault(s)
		if errors.Is(err, errors.ErrUnsupported) {
			continue // a POSIX fault on Windows: refused by ParseFault itself
		}
		if err != nil {
			t.Fatalf("ParseFault(%q): %v", s, err)
		}
		out = append(out, f)
		seen[f.Kind] = true
	}
	for k := range kinds {
		if !seen[k] && !strings.HasPrefix(string(k), "grandchild") {
			t.Errorf("the table has no fault of kind %q", k)
		}
	}
	return out
}

// Every fault kind × every path: each path refuses, when it is chosen and
// with a *PathError, exactly the faults the table says it cannot act on.
// The child paths are chosen by Main's flags; the others in this process.
// Counted at the server: a path that accepts a fault it cannot act on
// serves the call with the fault left undone, and a refused in-process
// path runs nothing.
func TestEveryPathRefusesTheFaultsItCannotAct(t *testing.T) {
	leakcheck.Check(t)
	held, run := 0, 0
	for _, f := range parseEach(t) {
		for _, name := range slices.Sorted(maps.Keys(tablePaths)) {
			p := tablePaths[name]
			want := slices.Contains(actsOn(f.Kind), name)
			run++
			t.Run(f.String()+"/"+name, func(t *testing.T) {
				got, fs, factory := choosePath(t, f, p)
				switch {
				case got != "" && got != "refused":
					t.Errorf("fault %q %v: %s, want %s", f, p, got, verdict(want))
				case want && got == "refused":
					t.Errorf("fault %q %v: refused, want applied", f, p)
				case !want && got == "":
					t.Errorf("fault %q %v: accepted, want refused: %s", f, p, probe(t, fs, factory))
				case !want && factory != nil:
					if r := probe(t, fs, factory); r != "" {
						t.Errorf("fault %q %v: refused, but %s", f, p, r)
					} else {
						held++
					}
				default:
					held++
				}
			})
		}
	}
	t.Logf("faults × paths: %d held of %d run", held, run)
}

func verdict(applied bool) string {
	if applied {
		return "applied"
	}
	return "refused"
}

// choosePath serves a fake with fault f by path p, as a user would, and
// returns "refused" when the path refuses it with a *PathError, "" when it
// accepts it, or another error; with the fake in this process and the
// factory its clients connect through, when there are any.
func choosePath(t *testing.T, f Fault, p Path) (string, *Server, transport.Factory) {
	t.Helper()
	if p.Child {
		args := []string{"--catalog", CatalogRich, "--fault", f.String()}
		if p.HTTP {
			args = append(args, "--http", "127.0.0.1:0")
		}
		if p.SSE {
			args = append(args, "--sse")
		}
		_, err := parseFlags(args)
		return refusal(err, f), nil, nil
	}
	fs, err := New(&Options{Catalog: CatalogRich, Faults: []Fault{f}}) // rich: it has tools and skills
	if err != nil {
		return refusal(err, f), nil, nil
	}
	t.Cleanup(func() { fs.Close() })
	if !p.HTTP {
		factory := fs.Factory()
		_, err := factory.Transport() // an in-process path refuses here, before any session
		return refusal(err, f), fs, factory
	}
	hs, err := fs.StartHTTP("", &HTTPOptions{SSE: p.SSE})
	if err != nil {
		return refusal(err, f), nil, nil
	}
	t.Cleanup(func() { hs.Close() })
	var factory transport.Factory
	if p.SSE {
		factory, err = sse.New(hs.URL, nil)
	} else {
		factory, err = streamablehttp.New(hs.URL, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return "", fs, factory
}

// refusal says what err is for fault f: "" for none, "refused" for its
// *PathError, or the unexpected error.
func refusal(err error, f Fault) string {
	var pe *PathError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe) && errors.Is(err, transport.ErrBadFault) && pe.Fault == f:
		return "refused"
	}
	return fmt.Sprintf("error %v", err)
}

// probe calls lookup once through factory and returns "" if nothing ran
// and the connection was refused, or what ran instead.
func probe(t *testing.T, fs *Server, factory transport.Factory) string {
	t.Helper()
	if factory == nil {
		return "Main's flags took it"
	}
	ctx := testkit.Context(t)
	profile := client.Profile20251125
	if factory.Kind() == transport.KindSSE {
		profile = client.ProfileLegacy
	}
	c, err := client.Connect(ctx, client.Definition{Name: "fake", Profile: profile, Transport: factory}, nil)
	var callErr error
	if err == nil {
		_, callErr = c.CallTool(ctx, "lookup", map[string]any{"query": "q"})
		c.Close()
	}
	n := fs.Counts().Executions["lookup"]
	switch {
	case err == nil:
		return fmt.Sprintf("the call was served with the fault left undone (%d executions, call error %v)", n, callErr)
	case n > 0:
		return fmt.Sprintf("lookup ran %d times", n)
	case !errors.Is(err, transport.ErrBadFault):
		return fmt.Sprintf("connect error %v, want one wrapping transport.ErrBadFault", err)
	}
	return ""
}
