package client_test

import (
	"context"
	"encoding/json"

	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddNotes are notifications/message and notifications/progress whose
// params the go-sdk reads in its own way (keys matched case-sensitively,
// the last of duplicates kept) or refuses (missing, null, of the wrong
// shape, nested too deep). nil params are sent without a params key.
var oddNotes = []struct {
	method string
	params []byte
}{
	{"notifications/message", []byte(`{"level":"info","logger":"l","data":{"a":[1,2.5,null,"\u00e9"]},"_meta":{"k":1}}`)},
	{"notifications/message", []byte(`{"level":"error","Level":"warning","data":"first","data":"kept","DATA":1}`)},
	{"notifications/message", []byte(`{"level":5}`)},
	{"notifications/message", []byte(`null`)},
	{"notifications/message", nil},
	{"notifications/message", []byte(`[]`)},
	{"notifications/message", []byte(`{"level":"info","data":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`)},
	{"notifications/message", []byte(`{"level":"debug","data":"\xff bad utf-8"}`)},
	{"notifications/progress", []byte(`{"progressToken":"t","progress":0.5,"total":1,"message":"m"}`)},
	{"notifications/progress", []byte(`{"progressToken":7,"Progress":3,"progress":2}`)},
	{"notifications/progress", []byte(`{"progressToken":"t","progress":"half"}`)},
	{"notifications/progress", []byte(`null`)},
	{"notifications/progress", nil},
	{"notifications/message", []byte(`{"level":"info","data":"end"}`)},
}

// noter is a server written at the JSON-RPC level that answers tools/call
// after sending oddNotes.
type noter struct{}

func (noter) Kind() transport.Kind { return transport.KindInProcess }

func (noter) Transport() (mcp.Transport, error) {
	ct, st := inprocess.Pipe()
	conn, _ := st.Connect(context.Background())
	go func() {
		defer conn.Close()
		ctx := context.Background()
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue
			}
			var result any = map[string]any{}
			switch req.Method {
			case "initialize":
				init := initialize("2025-11-25")
				init["capabilities"] = map[string]any{"tools": map[string]any{}, "logging": map[string]any{}}
				result = init
			case "tools/list":
				result = map[string]any{"tools": []any{tool("notes")}}
			case "tools/call":
				for _, n := range oddNotes {
					if conn.Write(ctx, &jsonrpc.Request{Method: n.method, Params: n.params}) != nil {
						return
					}
				}
				result = map[string]any{"content": []any{}}
			}
			raw, _ := json.Marshal(result)
			if conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: raw}) != nil {
				return
			}
		}
	}()
	return ct, nil
}

// heard records what notification handlers received, in order, until the
// last of oddNotes.
type heard struct {
	mu   sync.Mutex
	got  []string
	done chan struct{}
}

func (h *heard) add(kind string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		b = []byte(err.Error())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, kind+" "+string(b))
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
	if p, ok := params.(*mcp.LoggingMessageParams); ok && p.Data == "end" {
		close(h.done)
	}
}

func (h *heard) wait(t *testing.T, ctx context.Context) []string {
	t.Helper()
	select {
	case <-h.done:
	case <-ctx.Done():
		t.Fatal("the last notification never reached its handler")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got
}

// The notifications the client takes from the connection itself (logging,
// progress) reach its handlers exactly as the go-sdk's own client hands
// them to its handlers from the same messages: the same params, decoded
// alike, the same refused, in the same order.
func TestDivertedNotificationsAsTheGoSDKHandsThem(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sdkHeard := &heard{done: make(chan struct{})}
	sdk := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "v0"}, &mcp.ClientOptions{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientOptions.LoggingMessageHandler
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { sdkHeard.add("logging", r.Params) },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			sdkHeard.add("progress", r.Params)
		},
	})
	tr, _ := noter{}.Transport()
	cs, err := sdk.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes"}); err != nil {
		t.Fatal(err)
	}
	want := sdkHeard.wait(t, ctx)
	cs.Close()

	ours := &heard{done: make(chan struct{})}
	c, err := client.Connect(ctx, client.Definition{Name: "noter", Profile: client.Profile20251125, Transport: noter{}}, &client.Handlers{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
		Logging:  func(_ context.Context, p *mcp.LoggingMessageParams) { ours.add("logging", p) },
		Progress: func(_ context.Context, p *mcp.ProgressNotificationParams) { ours.add("progress", p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "notes", nil); err != nil {
		t.Fatal(err)
	}
	got := ours.wait(t, ctx)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("handlers heard (-go-sdk +client):\n%s", diff)
	}
	if len(want) < 5 {
		t.Errorf("the go-sdk's handlers heard %d notifications, want at least 5: the test sends too few it accepts\n%s", len(want), strings.Join(want, "\n"))
	}
}
