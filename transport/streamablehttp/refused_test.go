package streamablehttp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A call's POST refused with a 4xx and a body that is not JSON-RPC (a
// proxy's 400, 405 or 413) fails that call with CodeRefused, naming the
// status and the body, and the connection stays usable: the next call is
// answered. The refused call ran nowhere and was POSTed once. At the
// edges: 400 and 499 are refused so; 399 is no refusal, and 401, 403, 404
// and 429 keep their own handling (authorization, the session gone, a
// transient refusal). A refusal whose body is a JSON-RPC error reaches the
// call as the server wrote it.
func TestRefusedCallKeepsTheConnection(t *testing.T) {
	const rpcError = `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"the server's own reason"}}`
	for _, tc := range []struct {
		code   int
		body   string
		want   error  // of the refused call; nil: not ErrRefused
		says   string // in the refused call's error
		usable bool   // the next call is answered
	}{
		{400, "no", &jsonrpc.Error{Code: streamablehttp.CodeRefused}, "400 Bad Request: \"no\"", true},
		{405, "", &jsonrpc.Error{Code: streamablehttp.CodeRefused}, "405 Method Not Allowed", true},
		{413, "too big\n", &jsonrpc.Error{Code: streamablehttp.CodeRefused}, "413 Request Entity Too Large: \"too big\"", true},
		{499, "x", &jsonrpc.Error{Code: streamablehttp.CodeRefused}, "499", true},
		{400, rpcError, nil, "the server's own reason", true},
		{404, "gone", nil, "session not found", false},
		{429, "slow down", nil, "Too Many Requests", true},
	} {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			leakcheck.Check(t)
			r := newRig(t, rigConfig{middleware: onFirstToolCall(func(w http.ResponseWriter, req *http.Request, next http.Handler) {
				if tc.code == http.StatusNotFound {
					// The server forgets the session, as its 404 says.
					del := httptest.NewRequest(http.MethodDelete, req.URL.String(), nil)
					del.Header = req.Header.Clone()
					next.ServeHTTP(httptest.NewRecorder(), del)
				}
				if tc.body == rpcError {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tc.code)
				w.Write([]byte(tc.body))
			})})
			cs := connect(t, newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true}))
			_, err := callCount(t, cs)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) || tc.want == nil && errors.Is(err, &jsonrpc.Error{Code: streamablehttp.CodeRefused}) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("refused call: error = %v, want %v saying %q", err, tc.want, tc.says)
			}
			if got := r.calls.Load(); got != 0 {
				t.Errorf("the refused call ran %d times, want 0", got)
			}
			res, err := callCount(t, cs)
			if tc.usable && (err != nil || text(res) != "done") {
				t.Errorf("next call: %v, %v; want it answered on the same connection", res, err)
			}
			if !tc.usable && err == nil {
				t.Errorf("next call answered after the session was gone")
			}
			posts := 0
			for _, s := range r.seen() {
				if strings.HasPrefix(s, http.MethodPost) {
					posts++
				}
			}
			if want := 4; tc.usable && posts != want { // initialize, initialized, the refused call, the next
				t.Errorf("server saw %d POSTs, want %d (the refused call once): %q", posts, want, r.seen())
			}
		})
	}
}
