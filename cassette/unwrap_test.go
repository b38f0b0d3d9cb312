package cassette_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
)

// plainWrapper wraps a factory and forwards nothing but Unwrap, as
// mcptest's trackers do.
type plainWrapper struct{ transport.Factory }

func (w plainWrapper) Unwrap() transport.Factory { return w.Factory }

// TestHTTPRecordsThroughAWrapper: a Streamable HTTP factory wrapped by one
// that forwards nothing is still recorded at the HTTP level (its
// HTTPFactory and Classifier are found through Unwrap), and replays to the
// same outcomes.
func TestHTTPRecordsThroughAWrapper(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "wrapped.jsonl")
	s := newHTTPServer(t, statefulCounter(), false, nil)
	live := plainWrapper{plainWrapper{httpLive(t, s.url(), nil)}}
	data, outs := record(t, path, live, nil, rev2025, script[0])
	mustContain(t, "the cassette", string(data), `"transport":"streamablehttp"`, `"Mcp-Session-Id"`)
	if got := replay(t, path, nil, nil, rev2025, script[0]); !cmp.Equal(outs, got) {
		t.Errorf("replayed %v, want %v", got, outs)
	}
}

// TestFactoryUnwrap: a recording cassette unwraps to its live factory, so
// a stdio child's secrets are found through it; a replaying one unwraps to
// nothing, its sessions being its own, and its own ProtocolPinner stands.
func TestFactoryUnwrap(t *testing.T) {
	live, err := stdio.New("/bin/true", nil, &stdio.Options{Env: map[string]string{"API_KEY": "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.Open(tempPath(t, "rec.jsonl"), live, &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Unwrap() != transport.Factory(live) {
		t.Errorf("recording Unwrap = %v, want the live factory", rec.Unwrap())
	}
	h, ok := transport.As[cassette.SecretHolder](plainWrapper{rec})
	if !ok || !cmp.Equal(h.Secrets(), []string{"s3cret"}) {
		t.Errorf("secrets through a wrapper of the recording cassette: %v, %v; want [s3cret]", h, ok)
	}
	c, err := cassette.Parse("p.jsonl", []byte(`{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
{"kind":"end"}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := cassette.Replay(c, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unwrap() != nil {
		t.Errorf("replaying Unwrap = %v, want nil", rep.Unwrap())
	}
	if _, ok := transport.As[cassette.SecretHolder](rep); ok {
		t.Error("a replaying cassette exposes the live factory's secrets")
	}
	if p, ok := transport.As[transport.ProtocolPinner](plainWrapper{rep}); !ok || p != transport.ProtocolPinner(rep) {
		t.Errorf("ProtocolPinner through a wrapper of a replaying cassette = %v, %v; want the cassette's own", p, ok)
	}
}
