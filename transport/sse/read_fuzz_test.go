package sse_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	isse "github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport/sse"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const fuzzEndpoint = "event: endpoint\ndata: /messages?sessionid=1\n\n"

// endMethod marks the end of what the go-sdk's connection is handed in
// FuzzSessionReading.
const endMethod = "looprig/fuzz-end-6c1f"

// readSeeds are session streams (after the endpoint event) on which the
// go-sdk's reading and this package's could part: white space the go-sdk
// trims (ASCII and Unicode, around values and data lines), line ends,
// events it skips or reports, names it does not filter, data that is no
// message, and the decoding of messages (key case, ids, depth, batches).
var readSeeds = []string{
	"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n",
	"event: message\nid: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"data:  {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} \r\n\r\n",
	"data: \u00a0{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\u0085\n\n",
	"data: {\"jsonrpc\":\"2.0\",\ndata:   \"id\":1,\"result\":{}}\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\ndata:  b\"}\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\rb\"}\r\r",
	"event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"event:  message \ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"id: 7\n\n",
	"retry: 10\n\n",
	"event: ping\n\n",
	"data:\n\n",
	"data:   \n\n",
	": keepalive\n\n",
	"data: not json\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"ID\":1,\"result\":{}}\n\n",
	"data: {\"JSONRPC\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}\n\n",
	"data: [{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "}\n\n",
	"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
	"",
}

// FuzzSessionReading reads any session stream (after its endpoint event)
// through this package's connection, and hands the go-sdk's own SSE client
// connection the stream's events as this package hands the go-sdk events
// (read by internal/sse, written by sse.Append): both read the same
// messages in the same order, and fail at the same event. The stream's
// unfinished last event counts for neither.
func FuzzSessionReading(f *testing.F) {
	for _, s := range readSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Contains(in, []byte(endMethod)) {
			t.Skip("holds the end marker")
		}
		evs, err := isse.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		handed := []byte(fuzzEndpoint)
		for _, e := range evs {
			handed, _ = isse.Append(handed, e)
		}
		handed, _ = isse.Append(handed, isse.Event{Data: []byte(`{"jsonrpc":"2.0","method":"` + endMethod + `"}`)})
		want := readSDK(t, handed)
		got := readOurs(t, append([]byte(fuzzEndpoint), in...))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("on %.300q: reading mismatch (-go-sdk +sse):\n%s", in, diff)
		}
	})
}

// readSDK reads the session stream body through the go-sdk's SSE client
// connection, up to its first error or the end marker.
func readSDK(t *testing.T, body []byte) []string {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	hc := &http.Client{Transport: stream(body, true)}
	conn, err := (&mcp.SSEClientTransport{Endpoint: "http://127.0.0.1:1/sse", HTTPClient: hc}).Connect(ctx)
	if err != nil {
		t.Fatalf("the go-sdk's Connect: %v", err)
	}
	defer conn.Close()
	var out []string
	for {
		msg, err := conn.Read(ctx)
		switch {
		case ctx.Err() != nil:
			t.Fatalf("the go-sdk's connection read nothing for 10s after %q", out)
		case err != nil:
			return append(out, "error")
		case isEnd(msg):
			return append(out, "end")
		}
		out = append(out, flatten(msg))
	}
}

// readOurs reads the session stream body through this package's
// connection, up to its first error or the end of the stream.
func readOurs(t *testing.T, body []byte) []string {
	f, err := sse.New("http://127.0.0.1:1/sse", &sse.Options{Base: stream(body, false)})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer conn.Close()
	var out []string
	for {
		msg, err := conn.Read(ctx)
		switch {
		case ctx.Err() != nil:
			t.Fatalf("the connection read nothing for 10s after %q", out)
		case errors.Is(err, io.EOF):
			return append(out, "end")
		case err != nil:
			return append(out, "error")
		}
		out = append(out, flatten(msg))
	}
}

func isEnd(msg jsonrpc.Message) bool {
	r, ok := msg.(*jsonrpc.Request)
	return ok && r.Method == endMethod
}

func flatten(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request id=%#v method=%q params=%q", m.ID.Raw(), m.Method, m.Params)
	case *jsonrpc.Response:
		return fmt.Sprintf("response id=%#v result=%q error=%#v", m.ID.Raw(), m.Result, m.Error)
	}
	return fmt.Sprintf("%T", msg)
}

// stream answers every request with body as an event stream. If hold is
// set, body's endpoint event comes alone in the first reads, as this
// package hands it to the go-sdk (whose Connect reads it with a reader it
// then drops), and the body does not end after the rest but waits until it
// is closed, so that the go-sdk's connection, which closes itself at the
// end of its stream and may drop what it has read by then, reads
// everything.
func stream(body []byte, hold bool) roundTripFunc {
	return func(req *http.Request) (*http.Response, error) {
		var rc io.ReadCloser = io.NopCloser(bytes.NewReader(body))
		if hold {
			rc = &heldBody{
				first:  bytes.NewReader(body[:len(fuzzEndpoint)]),
				rest:   bytes.NewReader(body[len(fuzzEndpoint):]),
				closed: make(chan struct{}),
			}
		}
		return &http.Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {"text/event-stream"}},
			Body:       rc,
			Request:    req,
		}, nil
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// heldBody reads first, then rest, in reads of their own, then blocks
// until it is closed.
type heldBody struct {
	first, rest *bytes.Reader
	closed      chan struct{}
	once        sync.Once
}

func (h *heldBody) Read(p []byte) (int, error) {
	if h.first.Len() > 0 {
		return h.first.Read(p)
	}
	if h.rest.Len() > 0 {
		return h.rest.Read(p)
	}
	<-h.closed
	return 0, io.EOF
}

func (h *heldBody) Close() error {
	h.once.Do(func() { close(h.closed) })
	return nil
}
