package streamablehttp

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/internal/sse"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A call's event stream with a diverter that takes every
// notifications/message: the diverter is offered exactly the notifications
// the go-sdk's jsonrpc.DecodeMessage reads from the events the go-sdk
// would read (before the answer), with the same method and params, and the
// go-sdk reads every message it would have read from the events as sent
// but those.
func FuzzSSEBodyDiverted(f *testing.F) {
	for _, seed := range []string{
		sseEvent(notification(120)) + sseEvent(response(60)),
		"id: 1\nretry: 5\ndata: " + notification(100) + "\n\n" + "id: 2\ndata: " + response(60) + "\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":null}\n\n" + sseEvent(response(60)),
		"data: {\"jsonrpc\":\"2.0\",\"Method\":\"notifications/message\",\"method\":\"x\",\"id\":1}\n\n" + sseEvent(response(60)),
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"method\":\"notifications/progress\"}\n\n" + sseEvent(response(60)),
		"event: other\ndata: " + notification(100) + "\n\n" + sseEvent(response(60)),
		sseEvent(response(60)) + sseEvent(notification(120)),
		"data: {\"jsonrpc\":\"1.0\",\"method\":\"notifications/message\"}\n\n",
	} {
		f.Add([]byte(seed), 7)
		f.Add([]byte(seed), 4095) // the whole stream in one read
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk int) {
		chunk = 1 + abs(chunk)%4096
		b := newBodyBase(t, "")
		b.rc = io.NopCloser(&chunked{data: in, n: chunk})
		var offered []string
		b.st.divert = func(_ context.Context, r *jsonrpc.Request) bool {
			offered = append(offered, describe(r))
			return r.Method == "notifications/message"
		}
		body := &sseBody{bodyBase: b, ctx: context.Background(), call: testCall, maxEvent: 1 << 20, maxTotal: 1 << 20}
		out, err := io.ReadAll(body) // an error may follow the answer, which the go-sdk ends at
		body.Close()
		got, perr := sse.Parse(out)
		if perr != nil {
			t.Fatalf("what the go-sdk reads does not parse: %v\n%q", perr, out)
		}
		var p sse.Parser
		var sent []sse.Event
		p.Feed(in, func(e sse.Event) error { sent = append(sent, e); return nil })
		// What the go-sdk's own reading says: the messages it reads, but
		// the notifications the diverter took.
		var want, wantOffered []string
		read, _ := sdkReading(sent)
		for _, data := range read {
			if m, ok := decoded([]byte(data)).(*jsonrpc.Request); ok && !m.IsCall() {
				wantOffered = append(wantOffered, describe(m))
				if m.Method == "notifications/message" {
					continue
				}
			}
			want = append(want, data)
		}
		gotRead, answered := sdkReading(got)
		if !answered {
			t.Fatalf("the call got no answer from %q (read error %v)", out, err)
		}
		if _, sentAnswer := sdkReading(sent); !sentAnswer {
			gotRead = gotRead[:len(gotRead)-1] // the error answer the body ends an unanswered stream with
		}
		if diff := cmp.Diff(want, gotRead, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("messages handed to the go-sdk (-want +got):\n%s\nin: %q", diff, in)
		}
		if diff := cmp.Diff(wantOffered, offered, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("notifications offered to the diverter (-go-sdk's reading +offered):\n%s\nin: %q", diff, in)
		}
	})
}

func describe(r *jsonrpc.Request) string {
	return r.Method + " " + string(r.Params)
}
