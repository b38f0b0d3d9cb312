package streamablehttp_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

func TestCallToolAndCloseSendsDelete(t *testing.T) {
	leakcheck.Check(t)
	r := newRig(t, rigConfig{eventStore: true})
	f := newFactory(t, r.url(), nil)
	if f.Kind() != transport.KindStreamableHTTP {
		t.Errorf("Kind() = %v", f.Kind())
	}
	cs := connect(t, f)
	res, err := callCount(t, cs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("done", text(res)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !slices.Contains(r.seen(), http.MethodDelete+" ") {
		t.Errorf("server saw %q, want a DELETE", r.seen())
	}
}
