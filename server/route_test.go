package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// header lists request headers, a name and a value at a time; a name given
// twice is sent twice.
type header []string

// send POSTs body to ts with the headers a Streamable HTTP client always
// sends plus hs, and returns the status and the reply (code 0 for none).
func send(t testing.TB, ts *httptest.Server, body string, hs header) (int, rpcReply, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i < len(hs); i += 2 {
		req.Header.Add(hs[i], hs[i+1])
	}
	status, text := do(t, ts, req)
	var r rpcReply
	json.Unmarshal([]byte(lastJSON(text)), &r) // a string id leaves r.ID 0
	return status, r, text
}

// current is the headers of a 2026-07-28 tools/call of lookup.
var current = header{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "lookup"}

// lookupCall is a tools/call of lookup whose params end with extra (a
// comma and members, or "") and whose envelope ends with env.
func lookupCall(id, extra, env string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}` + extra + `}` + env + `}`
}

// An answer is how a request is answered: served (its tool runs once),
// or refused before anything runs with an HTTP status and a JSON-RPC code.
type answer struct {
	status int
	code   int64 // 0: served
}

var served = answer{http.StatusOK, 0}

func refused(status int, code int64) answer { return answer{status, code} }

// TestHTTPReadsAsTheGoSDK sends the requests that two JSON readers, or the
// server's routing and the go-sdk's, could read differently, to both
// modes: each is served once, or refused before its tool runs with the
// code the package documentation gives it.
func TestHTTPReadsAsTheGoSDK(t *testing.T) {
	const version = `"io.modelcontextprotocol/protocolVersion"`
	v2026 := `,` + meta
	badRequest, invalid, mismatch := http.StatusBadRequest, int64(jsonrpc.CodeInvalidRequest), int64(mcp.CodeHeaderMismatch)
	for _, tc := range []struct {
		name      string
		body      string
		hs        header
		def, stat answer // in the default mode, and Stateless
	}{
		{"2026-07-28, headers and _meta", lookupCall("1", v2026, ""), current, served, served},
		{"_META without headers", lookupCall("1", `,"_META":{`+version+`:"2026-07-28"}`, ""), nil,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"_Meta with a made-up version", lookupCall("1", `,"_Meta":{`+version+`:"2099-01-01"}`, ""), nil,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"PARAMS beside params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","PARAMS":{` + meta + `},"params":{"name":"lookup","arguments":{"query":"x"}}}`, nil,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"Method for method", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}` + v2026 + `}}`, current,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"method given twice", lookupCall("1", v2026, `,"method":"tools/list"`), current,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"_meta given twice", lookupCall("1", v2026+`,"_meta":{}`, ""), current,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"protocol version given twice", lookupCall("1", `,"_meta":{`+version+`:"2026-07-28",`+version+`:"2025-11-25"}`, ""), current,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"a batch with an ambiguous message", `[` + lookupCall("1", "", "") + `,` + lookupCall("2", `,"NAME":"x"`, "") + `]`, nil,
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"_meta version not a string, no headers", lookupCall("1", `,"_meta":{`+version+`:20260728}`, ""), nil,
			refused(badRequest, mismatch), served},
		{"no _meta, no headers", lookupCall("1", "", ""), nil, refused(badRequest, mismatch), served},
		{"2025-11-25 header, no session", lookupCall("1", "", ""), header{"Mcp-Protocol-Version", "2025-11-25"},
			refused(badRequest, invalid), served},
		{"2025-11-25 header, 2026-07-28 _meta", lookupCall("1", v2026, ""), header{"Mcp-Protocol-Version", "2025-11-25"},
			refused(badRequest, mismatch), refused(badRequest, mismatch)},
		{"2026-07-28 _meta, no headers", lookupCall("1", v2026, ""), nil, refused(badRequest, mismatch), refused(badRequest, mismatch)},
		{"a made-up version in the header and _meta", lookupCall("1", `,"_meta":{`+version+`:"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`, ""),
			header{"Mcp-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/call", "Mcp-Name", "lookup"},
			refused(badRequest, mcp.CodeUnsupportedProtocolVersion), refused(badRequest, mcp.CodeUnsupportedProtocolVersion)},
		{"Mcp-Method sent twice", lookupCall("1", v2026, ""), append(header{"Mcp-Method", "tools/call"}, current...),
			refused(badRequest, mismatch), refused(badRequest, mismatch)},
		{"Mcp-Protocol-Version sent twice", lookupCall("1", v2026, ""), append(header{"Mcp-Protocol-Version", "2025-11-25"}, current...),
			refused(badRequest, mismatch), refused(badRequest, mismatch)},
		{"Mcp-Session-Id sent twice", lookupCall("1", "", ""), header{"Mcp-Session-Id", "a", "Mcp-Session-Id", "b"},
			refused(badRequest, invalid), refused(badRequest, invalid)},
		{"an id the go-sdk cannot carry back", lookupCall("9007199254740993", v2026, ""), current,
			refused(badRequest, invalid), refused(badRequest, invalid)},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				leakcheck.Check(t)
				s, runs := countingServer(t, nil)
				ts := serveHTTP(t, httpHandler(t, s, mode.opts))
				want := tc.def
				if mode.opts != nil {
					want = tc.stat
				}
				status, r, text := send(t, ts, tc.body, tc.hs)
				var code int64
				if r.Error != nil {
					code = r.Error.Code
				}
				if got := (answer{status, code}); got != want {
					t.Errorf("answer %+v (%s), want %+v", got, strings.TrimSpace(text), want)
				}
				wantRuns := int64(0)
				if want == served {
					wantRuns = 1
				}
				if got := runs.Load(); got != wantRuns {
					t.Errorf("the tool ran %d times, want %d", got, wantRuns)
				}
			})
		}
	}
}

// FuzzRoute sends any body, with no session and no Mcp-* header, to the
// server's routing and to a bare go-sdk handler: the server sends it down
// the stateless path exactly when the go-sdk reads a protocol version in
// it (and so refuses it for lacking the header that must match), and never
// refuses as naming no revision a body in which the go-sdk reads one.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{
		lookupCall("1", ","+meta, ""),
		lookupCall("1", `,"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, ""),
		lookupCall("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":5}`, ""),
		lookupCall("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":""}`, ""),
		`[` + lookupCall("1", "", "") + `,{"jsonrpc":"2.0","method":"notifications/initialized","params":{` + meta + `}}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	s := newServer(f, "docs", "v1", nil)
	h := httpHandler(f, s, nil)
	defer h.Close()
	sdk := observingHandler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := fuzzPOST(body)
		in, r := readPOST(httptest.NewRecorder(), req, -1, 0, true)
		if in == nil || r != nil || in.msgs == nil {
			return // refused before any routing, or the go-sdk's to refuse as malformed
		}
		stateless, refusal := h.route(req, in)
		saw, known := sdkSawVersion(sdk, body)
		if !known {
			return
		}
		switch {
		case refusal != nil && saw:
			t.Fatalf("on %.300q: refused as naming no revision, but the go-sdk reads a protocol version in it", body)
		case refusal == nil && stateless != saw:
			t.Fatalf("on %.300q: routed stateless=%v, but the go-sdk reads a protocol version in it: %v", body, stateless, saw)
		}
	})
}

func fuzzPOST(body []byte) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

// observed is the code the observing handler's middleware answers with,
// instead of serving anything.
const observed = -31999

// observingHandler is a bare go-sdk stateless handler whose server answers
// every request it dispatches with the error observed, running nothing.
func observingHandler() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "observer", Version: "v0"}, nil)
	srv.AddReceivingMiddleware(func(mcp.MethodHandler) mcp.MethodHandler {
		return func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return nil, &jsonrpc.Error{Code: observed, Message: "observed"}
		}
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// sdkSawVersion serves body to the observing handler: the go-sdk read a
// protocol version in it when it refuses it for the missing header, and
// none when it dispatched it (or accepted notifications). Any other answer
// (a request it refused first for another reason) tells nothing.
func sdkSawVersion(sdk http.Handler, body []byte) (saw, known bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5e9)
	defer cancel()
	w := httptest.NewRecorder()
	sdk.ServeHTTP(w, fuzzPOST(body).WithContext(ctx))
	out, _ := io.ReadAll(w.Result().Body)
	switch {
	case bytes.Contains(out, []byte("header is required for requests carrying")):
		return true, true
	case w.Code == http.StatusAccepted, bytes.Contains(out, []byte(fmt.Sprint(observed))):
		return false, true
	}
	var r struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(out, &r) == nil && r.Error != nil && r.Error.Code == mcp.CodeHeaderMismatch {
		return true, true
	}
	return false, false
}
