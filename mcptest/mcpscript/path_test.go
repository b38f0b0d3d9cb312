package mcpscript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// One fault of each kind, in its text form; mcptest's
// TestEveryHelperRefusesTheFaultsItCannotAct has the same list.
var oneOfEachKind = []string{
	"delay=lookup:1ms", "hang=lookup", "error=lookup", "panic=lookup",
	"oversize=lookup:10", "flood-notifications=lookup:1", "env",
	"crash=lookup", "malformed=lookup", "flood-stderr:10", "ignore-eof",
	"ignore-sigterm", "grandchild",
	"drop=lookup:0", "drop-no-id=lookup:0", "delay-headers:1ms",
	"unauthorized", "forbidden", "gone=lookup", "server-error", "no-get",
	"redirect", "foreign-endpoint",
	"task=lookup", "task-required=lookup", "task-fail=lookup",
	"task-input=lookup", "task-expire:50ms", "task-poll-error=lookup:1",
	"skill-digest=pdf-processing", "skill-size=pdf-processing",
	"skill-frontmatter=pdf-processing", "skill-changed=pdf-processing",
}

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
	for _, s := range oneOfEachKind {
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
