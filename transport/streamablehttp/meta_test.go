package streamablehttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pingMetas keeps the method, _meta and status of every call that
// reaches the server it wraps.
type pingMetas struct {
	mu   sync.Mutex // guards seen
	seen []string   // each call's "METHOD _meta STATUS"
}

func (p *pingMetas) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		// Kept as the status goes out, before the client can have the
		// answer.
		rec := &statusWriter{ResponseWriter: w, record: func(status int) {
			p.mu.Lock()
			p.seen = append(p.seen, m.Method+" "+r.Header.Get("Mcp-Method")+" "+string(m.Params.Meta)+" "+http.StatusText(status))
			p.mu.Unlock()
		}}
		next.ServeHTTP(rec, r)
		rec.WriteHeader(http.StatusOK) // a handler that wrote nothing
	})
}

// statusWriter calls record with the response's status, once, before it
// is written.
type statusWriter struct {
	http.ResponseWriter
	record func(status int)
	done   bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		w.record(code)
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// A go-sdk session's Ping on 2026-07-28 works: the go-sdk v1.8.0 sends it
// without the per-request _meta every request of that revision needs,
// which a server refuses with 400, and the revision has no ping (a server
// refuses one with -32601); it goes as the revision's probe,
// server/discover, with the _meta the session's requests carry, and its
// answer is the ping's. Through this package's transport, even a go-sdk
// session made with the go-sdk's own client pings.
func TestPingCarriesTheRequestMeta(t *testing.T) {
	leakcheck.Check(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "rig", Version: "v0"}, nil)
	pm := &pingMetas{}
	ts := httptest.NewServer(pm.handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})))
	defer ts.Close()
	f, err := streamablehttp.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	impl := &mcp.Implementation{Name: "pinger", Version: "v1"}
	cs, err := mcp.NewClient(impl, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", got)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("Ping: %v", err)
	}
	// A ping whose caller set _meta of its own keeps it, and gets what it
	// lacks.
	if err := cs.Ping(ctx, &mcp.PingParams{Meta: mcp.Meta{"mine": "kept"}}); err != nil {
		t.Errorf("Ping with _meta: %v", err)
	}
	triple := `{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"pinger","version":"v1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	want := []string{
		"server/discover server/discover " + triple + "} OK", // Connect's
		"server/discover server/discover " + triple + "} OK",
		"server/discover server/discover " + triple + `,"mine":"kept"} OK`,
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if diff := cmp.Diff(want, pm.seen); diff != "" {
		t.Errorf("pings at the server mismatch (-want +got):\n%s", diff)
	}
}

// On 2025-11-25, which has no per-request _meta, a ping is sent as the
// go-sdk wrote it.
func TestPingOn20251125Unchanged(t *testing.T) {
	leakcheck.Check(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "rig", Version: "v0"}, nil)
	pm := &pingMetas{}
	ts := httptest.NewServer(pm.handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	defer ts.Close()
	f, err := streamablehttp.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := f.Transport()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "pinger", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: stableVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("Ping: %v", err)
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if diff := cmp.Diff([]string{"initialize   OK", "ping   OK"}, pm.seen); diff != "" {
		t.Errorf("pings at the server mismatch (-want +got):\n%s", diff)
	}
}
