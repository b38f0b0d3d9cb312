package hostile_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A revision is one protocol revision a peer is reached at, and for
// Streamable HTTP whether the server keeps sessions.
type revision struct {
	name      string
	profile   client.Profile
	stateless bool
}

var (
	rev20251125          = revision{name: "2025-11-25", profile: client.Profile20251125}
	rev20251125Stateless = revision{name: "2025-11-25-stateless", profile: client.Profile20251125, stateless: true}
	rev20260728          = revision{name: "2026-07-28", profile: client.Profile20260728, stateless: true}
	rev20241105          = revision{name: "2024-11-05", profile: client.ProfileLegacy}
)

// revisions are the revisions each transport is shown at.
var revisions = map[transport.Kind][]revision{
	transport.KindStdio:          {rev20251125, rev20260728},
	transport.KindStreamableHTTP: {rev20251125, rev20251125Stateless, rev20260728},
	transport.KindSSE:            {rev20241105},
}

// A peer is a server reached over one transport at one revision, with a
// fault, and what it counts: executions of each tool, POSTs of each call
// id, requests at the second origin it may redirect to.
type peer struct {
	def   client.Definition
	kind  transport.Kind
	rev   revision
	execs func() int // executions of "echo"

	mu    sync.Mutex     // guards posts and gets
	posts map[string]int // POSTs of a tools/call, by JSON-RPC id
	gets  int            // GETs at the peer's own origin

	other *secondOrigin
	dir   string // the stdio child's record directory
}

// callPosts returns the most POSTs any one tools/call id received.
func (p *peer) callPosts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	most := 0
	for _, n := range p.posts {
		most = max(most, n)
	}
	return most
}

func (p *peer) getCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets
}

// secondOrigin is another origin a hostile peer points the client at. It
// counts every request and every credential it receives.
type secondOrigin struct {
	srv      *httptest.Server
	requests atomic.Int64
	auths    atomic.Int64
}

func newSecondOrigin(t testing.TB) *secondOrigin {
	o := &secondOrigin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			o.auths.Add(1)
		}
		http.Error(w, "second origin", http.StatusTeapot)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// An httpFault wraps the well-behaved handler of an HTTP peer.
type httpFault func(p *peer, next http.Handler) http.Handler

// newPeer starts newServer behind fault (HTTP) or as a stdio child with
// the fault named by stdioFault (its HOSTILE_FAULT), and returns the peer.
func newPeer(t testing.TB, kind transport.Kind, rev revision, fault httpFault, stdioFault string) *peer {
	t.Helper()
	p := &peer{kind: kind, rev: rev, posts: map[string]int{}, other: newSecondOrigin(t)}
	lim := client.Limits{}
	var f transport.Factory
	var err error
	switch kind {
	case transport.KindStdio:
		p.dir = t.TempDir()
		exe, e := os.Executable()
		if e != nil {
			t.Fatal(e)
		}
		f, err = stdio.New(exe, nil, &stdio.Options{
			Env: map[string]string{
				childEnv: "faulty", faultEnv: stdioFault, recordEnv: p.dir,
				"GORACE": "atexit_sleep_ms=0",
			},
			MaxFrameBytes: maxFrame,
			CloseGrace:    200e6,
			TermGrace:     200e6,
		})
		p.execs = func() int { return len(recorded(p.dir, "exec")) }
	default:
		n := &counts{}
		srv := newServer(n)
		p.execs = func() int { return n.get("echo") }
		var h http.Handler
		if kind == transport.KindSSE {
			h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		} else {
			h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: rev.stateless, JSONResponse: true})
		}
		if fault != nil {
			h = fault(p, h)
		}
		ts := httptest.NewServer(p.count(h))
		t.Cleanup(func() {
			ts.Close()
			// A session the client did not end (it was told the session
			// was gone) is the server's to end.
			for ss := range srv.Sessions() {
				ss.Close()
			}
		})
		if kind == transport.KindSSE {
			f, err = sse.New(ts.URL, &sse.Options{Limits: sse.Limits{MaxEventBytes: maxFrame, MaxBodyBytes: maxFrame}})
		} else {
			f, err = streamablehttp.New(ts.URL, &streamablehttp.Options{Limits: streamablehttp.Limits{MaxJSONBytes: maxFrame, MaxEventBytes: maxFrame}})
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	p.def = client.Definition{Name: "hostile", Profile: rev.profile, Transport: f, Limits: lim}
	return p
}

// maxFrame is the bound on one message each peer's transport is given.
const maxFrame = 64 << 10

// count counts the POSTs of each tools/call id and the GETs at the peer.
func (p *peer) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			p.mu.Lock()
			p.gets++
			p.mu.Unlock()
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if id, ok := toolCallID(body); ok {
				p.mu.Lock()
				p.posts[id]++
				p.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// toolCallID returns the id of the tools/call body carries.
func toolCallID(body []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		return "", false
	}
	return string(m.ID), true
}

// isToolCall reports whether r POSTs a tools/call, leaving its body
// readable.
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	_, ok := toolCallID(body)
	return ok
}

// Records kept by stdio children: one file per kind of record in the
// directory recordEnv names, one line per record.
const (
	faultEnv  = "HOSTILE_FAULT"
	recordEnv = "HOSTILE_RECORD"
)

func record(kind, line string) {
	f, err := os.OpenFile(filepath.Join(os.Getenv(recordEnv), kind), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

func recorded(dir, kind string) []string {
	f, err := os.Open(filepath.Join(dir, kind))
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	for s := bufio.NewScanner(f); s.Scan(); {
		lines = append(lines, s.Text())
	}
	return lines
}

func recordedPids(dir, kind string) []int {
	var pids []int
	for _, l := range recorded(dir, kind) {
		if n, err := strconv.Atoi(strings.TrimSpace(l)); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}
