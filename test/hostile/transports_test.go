package hostile_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkPeer returns a Definition reaching newServer over kind: a stdio child
// (the test binary), a Streamable HTTP or a legacy SSE server on loopback.
// n counts executions where the server runs in this process (HTTP).
func sdkPeer(t testing.TB, kind transport.Kind, n *counts) client.Definition {
	t.Helper()
	var f transport.Factory
	var err error
	switch kind {
	case transport.KindStdio:
		exe, e := os.Executable()
		if e != nil {
			t.Fatal(e)
		}
		f, err = stdio.New(exe, nil, &stdio.Options{Env: map[string]string{childEnv: "sdk", "GORACE": "atexit_sleep_ms=0"}})
	case transport.KindStreamableHTTP:
		srv := newServer(n)
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		t.Cleanup(ts.Close)
		f, err = streamablehttp.New(ts.URL, nil)
	case transport.KindSSE:
		srv := newServer(n)
		ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		t.Cleanup(ts.Close)
		f, err = sse.New(ts.URL, nil)
	default:
		t.Fatalf("no peer for transport %v", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return client.Definition{Name: "hostile", Transport: f}
}

var allKinds = []transport.Kind{transport.KindStdio, transport.KindStreamableHTTP, transport.KindSSE}
