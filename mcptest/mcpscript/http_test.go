package mcpscript_test

import (
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest/mcpscript"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScriptConnectHTTP runs a script against a fake server the test
// started over Streamable HTTP, outside the script: connect http reaches it
// through transport/streamablehttp.
func TestScriptConnectHTTP(t *testing.T) {
	fs, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := fs.StartHTTP("", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	p := mcpscript.Params("")
	p.Dir = ""
	p.Files = []string{"testdata/http.txtar"}
	mcpSetup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		env.Setenv("DOCS_URL", hs.URL)
		return mcpSetup(env)
	}
	t.Cleanup(func() { // after the script, which runs as a parallel subtest
		if n := fs.Counts().Executions["lookup"]; n != 1 {
			t.Errorf("lookup ran %d times over HTTP, want 1", n)
		}
	})
	testscript.Run(t, p)
}
