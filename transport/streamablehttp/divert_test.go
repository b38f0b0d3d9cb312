package streamablehttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A notification the diverter takes never reaches the go-sdk, one it
// declines does, and the taken one's event id still counts: the stream,
// cut after both, is resumed from the last id, which the taken event
// carried.
func TestDivertedEventKeepsItsID(t *testing.T) {
	leakcheck.Check(t)
	const (
		logNote      = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"taken"}}`
		progressNote = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
	)
	var callID atomic.Value // the tools/call's id, as sent
	cut := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case isToolCall(r) && callID.Load() == nil:
				var m struct{ ID json.RawMessage }
				data, _ := io.ReadAll(r.Body)
				json.Unmarshal(data, &m)
				callID.Store(string(m.ID))
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, "id: ev-1\ndata: "+progressNote+"\n\nid: ev-2\nretry: 10\ndata: "+logNote+"\n\n")
				rc := http.NewResponseController(w)
				rc.Flush()
				if conn, _, err := rc.Hijack(); err == nil {
					conn.Close()
				}
			case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+callID.Load().(string)+`,"result":{"content":[{"type":"text","text":"resumed"}]}}`+"\n\n")
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
	r := newRig(t, rigConfig{middleware: cut})
	tr, err := newFactory(t, r.url(), &streamablehttp.Options{DisableStandaloneSSE: true}).Transport()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var offered []string
	tr.(clientseam.Diverter).SetDiverter(func(_ context.Context, msg *jsonrpc.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		offered = append(offered, msg.Method+" "+string(msg.Params))
		return msg.Method == "notifications/message"
	})
	var logged, progressed atomic.Int64
	c := testkit.NewClient(&mcp.ClientOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientOptions.LoggingMessageHandler
		LoggingMessageHandler:       func(context.Context, *mcp.LoggingMessageRequest) { logged.Add(1) },
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progressed.Add(1) },
	})
	cs := testkit.Connect(t, tr, &testkit.ConnectOptions{Client: c, Version: stableVersion})
	res, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "count"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if diff := cmp.Diff("resumed", text(res)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	mu.Lock()
	wantOffered := []string{
		`notifications/progress {"progressToken":"p","progress":1}`,
		`notifications/message {"level":"info","data":"taken"}`,
	}
	if diff := cmp.Diff(wantOffered, offered); diff != "" {
		t.Errorf("notifications offered to the diverter (-want +got):\n%s", diff)
	}
	mu.Unlock()
	var resumes []string
	for _, s := range r.seen() {
		if strings.HasPrefix(s, "GET ") && s != "GET " {
			resumes = append(resumes, s)
		}
	}
	if diff := cmp.Diff([]string{"GET ev-2"}, resumes); diff != "" {
		t.Errorf("resumptions (-want +got):\n%s", diff)
	}
	if got := logged.Load(); got != 0 {
		t.Errorf("the go-sdk handed %d diverted log messages to its handler, want 0", got)
	}
	// The go-sdk hands progress over on a goroutine of its own; the call
	// has returned, so it has read it.
	cs.Close()
	if got := progressed.Load(); got != 1 {
		t.Errorf("the go-sdk handed over %d progress notifications, want 1 (declined by the diverter)", got)
	}
}
