package mcptest

import (
	"github.com/looprig/mcp/mcptest/internal/procgroup"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// TestWrappersForwardNothingByHand: the connection counter and the
// tracker, and their transports and connections, implement no optional
// capability themselves (each is found through Unwrap), so none can be
// forgotten in one of them.
func TestWrappersForwardNothingByHand(t *testing.T) {
	capabilities := []reflect.Type{
		reflect.TypeFor[transport.Classifier](),
		reflect.TypeFor[transport.ProtocolPinner](),
		reflect.TypeFor[cassette.SecretHolder](),
		reflect.TypeFor[clientseam.Pacer](),
		reflect.TypeFor[transport.Diagnoser](),
		reflect.TypeFor[clientseam.Tapper](),
		reflect.TypeFor[clientseam.Diverter](),
	}
	for _, w := range []reflect.Type{
		reflect.TypeFor[*connCounter](), reflect.TypeFor[procgroup.Tracked](),
		reflect.TypeFor[countedTransport](), reflect.TypeFor[procgroup.TrackedTransport](),
		reflect.TypeFor[*countedConn](),
	} {
		for _, c := range capabilities {
			if w.Implements(c) {
				t.Errorf("%v implements %v by hand", w, c)
			}
		}
	}
}

// TestWrappersReachEveryCapability: a tracker of a counter of a tracker of
// each transport reaches each capability the transport has.
func TestWrappersReachEveryCapability(t *testing.T) {
	std, err := stdio.New("/bin/true", nil, &stdio.Options{Env: map[string]string{"API_KEY": "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := sse.New("http://127.0.0.1:1/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	streamable, err := streamablehttp.New("http://127.0.0.1:1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	type caps struct {
		Classifier, Pacer, Tapper, Diverter bool
		Pin                                 string
		Secrets                             []string
	}
	of := func(f transport.Factory) caps {
		var c caps
		_, c.Classifier = transport.As[transport.Classifier](f)
		if p, ok := transport.As[transport.ProtocolPinner](f); ok {
			c.Pin = p.PinnedProtocolVersion()
		}
		if h, ok := transport.As[cassette.SecretHolder](f); ok {
			c.Secrets = h.Secrets()
		}
		tr, err := f.Transport()
		if err != nil {
			t.Fatal(err)
		}
		_, c.Pacer = transport.As[clientseam.Pacer](tr)
		_, c.Tapper = transport.As[clientseam.Tapper](tr)
		_, c.Diverter = transport.As[clientseam.Diverter](tr)
		return c
	}
	for _, tc := range []struct {
		name string
		f    transport.Factory
		want caps
	}{
		{"stdio", std, caps{Secrets: []string{"s3cret"}}},
		{"sse", legacy, caps{Classifier: true, Pin: sse.ProtocolVersion}},
		{"streamablehttp", streamable, caps{Classifier: true, Pacer: true, Tapper: true, Diverter: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Track(t, &connCounter{Factory: Track(t, tc.f)})
			if diff := cmp.Diff(tc.want, of(w)); diff != "" {
				t.Errorf("capabilities through the wrappers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
