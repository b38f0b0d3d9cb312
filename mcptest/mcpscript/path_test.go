package mcpscript_test

import (
	"errors"
	"github.com/looprig/mcp/internal/testkit"
	"strings"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// The script command serve, in process, over HTTP and over legacy SSE,
// refuses at once, as its path's rule says (fakeserver.CheckPath), every
// fault kind it cannot act on, and no other: a fault it took would be
// left undone.
func TestServeRefusesTheFaultsItCannotAct(t *testing.T) {
	mcptest.LeakCheck(t)
	paths := []struct {
		flag string
		path fakeserver.Path
	}{
		{"", fakeserver.Path{}},
		{"-http ", fakeserver.Path{HTTP: true}},
		{"-sse ", fakeserver.Path{HTTP: true, SSE: true}},
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
		for _, p := range paths {
			run++
			t.Run("serve "+p.flag+s, func(t *testing.T) {
				failed, log := runScript(t, "serve "+p.flag+"s --catalog rich --fault "+s+"\n")
				refused := failed && strings.Contains(log, "does not act")
				want := !f.ActsOn(p.path)
				if refused != want || (failed && !refused) {
					t.Errorf("fault %q %v: script failed %v, refused %v, want refused %v; log:\n%s", f, p.path, failed, refused, want, log)
					return
				}
				held++
			})
		}
	}
	t.Logf("faults × serve paths: %d held of %d run", held, run)
}
