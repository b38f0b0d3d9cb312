package streamablehttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// holdRig is a rig whose tool "hold" is answered at once on an event stream
// that the server then holds open until released (or until the client goes
// away), as a server may that ends its streams late.
type holdRig struct {
	*rig
	answered chan struct{} // a hold answered, its stream held
	release  chan struct{} // closing it ends the held streams
	ended    chan string   // a held stream ended: "released" or "client gone"
}

func newHoldRig(t *testing.T) *holdRig {
	h := &holdRig{answered: make(chan struct{}, 1), release: make(chan struct{}), ended: make(chan string, 1)}
	h.rig = newRig(t, rigConfig{eventStore: true, middleware: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if r.Method != http.MethodPost || json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" || msg.Params.Name != "hold" {
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\nid: h_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"held\"}]}}\n\n", msg.ID)
			w.(http.Flusher).Flush()
			h.answered <- struct{}{}
			select {
			case <-h.release:
				h.ended <- "released"
			case <-r.Context().Done():
				h.ended <- "client gone"
			}
		})
	}})
	t.Cleanup(func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	})
	return h
}

// A call answered on a stream the server keeps open is answered at once:
// the answer does not wait for the stream's end (the go-sdk reads what
// follows an answer on no stream), and the stream is read to its end after.
func TestAnswerDoesNotWaitForTheStreamsEnd(t *testing.T) {
	h := newHoldRig(t)
	cs := connect(t, newFactory(t, h.url(), nil))
	res, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "hold"})
	if err != nil || text(res) != "held" {
		t.Fatalf("CallTool(hold) = %v, %v; want held", res, err)
	}
	testkit.Await(t, h.answered, "the server answering the hold")
	select {
	case how := <-h.ended:
		t.Fatalf("the held stream ended (%s) before the call returned", how)
	default:
	}
	close(h.release)
	if got := testkit.Await(t, h.ended, "the held stream's end"); got != "released" {
		t.Errorf("the held stream ended: %s, want released (the client read it to its end)", got)
	}
	if res, err := callCount(t, cs); err != nil || text(res) != "done" {
		t.Errorf("the next call = %v, %v; want done", res, err)
	}
}

// Closing the session ends the reading of a stream the server still holds
// after its answer: nothing of the connection outlives it.
func TestCloseEndsAHeldStream(t *testing.T) {
	leakcheck.Check(t)
	h := newHoldRig(t)
	cs := testkit.Connect(t, testkit.Transport(t, newFactory(t, h.url(), nil)), &testkit.ConnectOptions{Version: stableVersion})
	if res, err := cs.CallTool(testkit.Context(t), &mcp.CallToolParams{Name: "hold"}); err != nil || text(res) != "held" {
		t.Fatalf("CallTool(hold) = %v, %v; want held", res, err)
	}
	testkit.Await(t, h.answered, "the server answering the hold")
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := testkit.Await(t, h.ended, "the held stream's end after Close"); got != "client gone" {
		t.Errorf("the held stream ended: %s, want client gone", got)
	}
}
