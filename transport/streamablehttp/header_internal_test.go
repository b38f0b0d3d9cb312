package streamablehttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"
)

// The bound on the wait for response headers ends when the headers come,
// even if the request is still being written then: a server may answer
// before it reads the body, and the request's WroteRequest then comes after
// RoundTrip returned. A bound started that late would cancel the request
// while its stream is being read. Here the server sends the headers, reads
// the body only once the client has them, and answers well after the bound
// has passed since the write's end: the stream must deliver the answer.
func TestHeaderBoundEndsAtTheHeaders(t *testing.T) {
	const bound = 30 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gotHeaders := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		select {
		case <-gotHeaders:
		case <-ctx.Done():
			return
		}
		io.Copy(io.Discard, r.Body) // the client's write completes only now
		// Not synchronisation: the answer must come after the bound, timed
		// from the write's end, has passed.
		select {
		case <-time.After(5 * bound):
		case <-ctx.Done():
			return
		}
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer srv.Close()
	f, err := New(srv.URL+"/mcp", &Options{Timeouts: Timeouts{ResponseHeader: bound}})
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	defer st.shutdown()
	// A body far larger than the socket buffers: its write outlasts the
	// headers.
	args := strings.Repeat("x", 16<<20)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"` + args + `"}}}`)
	var once sync.Once
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { once.Do(func() { close(gotHeaders) }) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, srv.URL+"/mcp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := st.RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; !bytes.Contains(got, []byte(want)) {
		t.Errorf("stream = %q, want it to carry %s", got, want)
	}
}
