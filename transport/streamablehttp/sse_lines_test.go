package streamablehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEventStreamLineEnds proves that the transport reads server-sent
// events as the standard defines them, not as one writer happens to: a
// server that ends its lines with CR alone, or CRLF, that writes "data:"
// without the space, and sends comments, is understood, and the go-sdk
// above gets the same answers.
func TestEventStreamLineEnds(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		t.Run(fmt.Sprintf("%q", eol), func(t *testing.T) {
			leakcheck.Check(t)
			srv := httptest.NewServer(rawServer(eol))
			defer srv.Close()
			f, err := streamablehttp.New(srv.URL+"/mcp", &streamablehttp.Options{DisableStandaloneSSE: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr, _ := f.Transport()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != "raw"+eol {
				t.Errorf("text = %q, want %q", got, "raw"+eol)
			}
		})
	}
}

// rawServer answers initialize and tools/call with event streams whose
// lines end with eol, and accepts notifications.
func rawServer(eol string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "raw", "version": "v1"}}
		default:
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "raw" + eol}}}
		}
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		w.Header().Set("Content-Type", "text/event-stream")
		// A comment, an event with no space after its colons, split over
		// two data lines at a JSON space.
		half := strings.Index(string(data), ",")
		fmt.Fprintf(w, ": hello%sevent:message%sid:1%sdata:%s%sdata:%s%s%s", eol, eol, eol, data[:half+1], eol, data[half+1:], eol, eol)
	})
}
