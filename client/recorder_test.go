package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// recorder is an http.Handler in front of a go-sdk handler that records
// every JSON-RPC request POSTed to it, and every GET, in order.
type recorder struct {
	next  http.Handler
	mu    sync.Mutex // guards posts
	posts []posted
}

// posted is one JSON-RPC request as the server received it (Method "GET"
// for a GET).
type posted struct {
	ID     string // the raw id
	Method string
	Name   string // params.name (tools/call, prompts/get) or params.uri (resources/read)
	Header http.Header
	Body   []byte
}

func newRecorder(next http.Handler) *recorder { return &recorder{next: next} }

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodGet {
		r.mu.Lock()
		r.posts = append(r.posts, posted{Method: "GET", Header: req.Header.Clone()})
		r.mu.Unlock()
	}
	if req.Method == http.MethodPost {
		body := readBody(req)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			name := m.Params.Name
			if name == "" {
				name = m.Params.URI
			}
			r.mu.Lock()
			r.posts = append(r.posts, posted{ID: string(m.ID), Method: m.Method, Name: name, Header: req.Header.Clone(), Body: body})
			r.mu.Unlock()
		}
	}
	r.next.ServeHTTP(w, req)
}

// readBody reads r's body and puts it back for the next handler.
func readBody(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// all returns the requests received so far.
func (r *recorder) all() []posted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]posted(nil), r.posts...)
}

// methods returns the methods of the requests received so far.
func (r *recorder) methods() []string {
	var out []string
	for _, p := range r.all() {
		out = append(out, p.Method)
	}
	return out
}

// connectURL connects a client named docs, with the default profile and h,
// over Streamable HTTP to url with opts; it checks that the client
// negotiated version, and closes it at cleanup.
func connectURL(t *testing.T, url string, opts *streamablehttp.Options, h *client.Handlers, version string) *client.Client {
	t.Helper()
	f, err := streamablehttp.New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(context.Background(), client.Definition{Name: "docs", Transport: f}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if v := c.ProtocolVersion(); v != version {
		t.Fatalf("negotiated %s, want %s", v, version)
	}
	return c
}
