package mcptest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScriptConnectHTTP runs a script against the fake server served over
// Streamable HTTP by the go-sdk's handler (until the fake server serves HTTP
// itself): connect http reaches it through transport/streamablehttp.
func TestScriptConnectHTTP(t *testing.T) {
	fs := fakeserver.New(nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fs.Server().MCP() }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	p := mcptest.Params("")
	p.Dir = ""
	p.Files = []string{"testdata/http.txtar"}
	p.Setup = func(env *testscript.Env) error {
		env.Setenv("DOCS_URL", srv.URL)
		return mcptest.Setup(env)
	}
	t.Cleanup(func() { // after the script, which runs as a parallel subtest
		if n := fs.Executions("lookup"); n != 1 {
			t.Errorf("lookup ran %d times over HTTP, want 1", n)
		}
	})
	testscript.Run(t, p)
}
