package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A recording is bounded by MaxSize in memory too, not only when it is
// written: past the bound the recorder keeps nothing more, and Close says
// ErrTooLarge. These tests feed each recorder a server that sends 4 MiB in
// 1 KiB messages against a bound of 64 KiB, and count what the recorder
// holds.

const (
	testBound = 64 << 10
	floodMsgs = 4 << 10
	floodSize = 1 << 10
)

// floodConn is a connection whose server sends floodMsgs notifications of
// floodSize bytes, then ends.
type floodConn struct{ n int }

func (c *floodConn) Read(context.Context) (jsonrpc.Message, error) {
	if c.n == floodMsgs {
		return nil, io.EOF
	}
	c.n++
	return &jsonrpc.Request{Method: "notifications/message", Params: []byte(`{"level":"info","data":"` + strings.Repeat("f", floodSize) + `"}`)}, nil
}
func (c *floodConn) Write(context.Context, jsonrpc.Message) error { return nil }
func (c *floodConn) Close() error                                 { return nil }
func (c *floodConn) SessionID() string                            { return "" }

func TestMessageRecorderMemoryBounded(t *testing.T) {
	setLimit(t, testBound)
	rc := &Conn{inner: &floodConn{}}
	for {
		if _, err := rc.Read(context.Background()); err != nil {
			break
		}
	}
	held := 0
	for _, e := range rc.entries {
		if r, ok := e.msg.(*jsonrpc.Request); ok {
			held += len(r.Params)
		}
	}
	if held > 2*testBound {
		t.Errorf("the recorder holds %d bytes of messages after the server sent %d, want at most about the bound, %d", held, floodMsgs*floodSize, testBound)
	}
	if _, err := rc.Taken(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("taken = %v, want ErrTooLarge", err)
	}
}

// floodRT answers every request with an event stream of floodMsgs events
// of floodSize bytes.
type floodRT struct{}

func (floodRT) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	go func() {
		for i := range floodMsgs {
			fmt.Fprintf(pw, "id: %d\ndata: %s\n\n", i, strings.Repeat("f", floodSize))
		}
		pw.Close()
	}()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: req}, nil
}

func TestHTTPRecorderMemoryBounded(t *testing.T) {
	setLimit(t, testBound)
	origin, err := auth.ParseOrigin("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	r := &HTTPRecorder{origin: origin}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/mcp", nil)
	resp, err := r.Wrap(floodRT{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, resp.Body); err != nil || n < floodMsgs*floodSize {
		t.Fatalf("the client read %d bytes, %v; want the whole stream: the recorder must not cut it", n, err)
	}
	resp.Body.Close()
	entries, err := r.Close()
	held := 0
	for _, e := range entries {
		held += len(e.raw)
	}
	if held > 2*testBound {
		t.Errorf("the recorder holds %d bytes of events after the server sent %d, want at most about the bound, %d", held, floodMsgs*floodSize, testBound)
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("close = %v, want ErrTooLarge", err)
	}
}
