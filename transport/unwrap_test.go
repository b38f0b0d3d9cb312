package transport_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wrapped is a factory wrapper that forwards no capability: it has
// Unwrap, and its transports and connections have theirs, and nothing
// else beyond Factory, mcp.Transport and mcp.Connection.
type wrapped struct{ transport.Factory }

func (w wrapped) Unwrap() transport.Factory { return w.Factory }

func (w wrapped) Transport() (mcp.Transport, error) {
	t, err := w.Factory.Transport()
	if err != nil {
		return nil, err
	}
	return wrappedTransport{t}, nil
}

type wrappedTransport struct{ mcp.Transport }

func (t wrappedTransport) Unwrap() mcp.Transport { return t.Transport }

func (t wrappedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return wrappedConn{c}, nil
}

type wrappedConn struct{ mcp.Connection }

func (c wrappedConn) Unwrap() mcp.Connection { return c.Connection }

// twice wraps f in two wrappers.
func twice(f transport.Factory) transport.Factory { return wrapped{wrapped{f}} }

// capabilities is what As finds of a factory, its transport and its
// connection.
type capabilities struct {
	Classifier, Pinner, Secrets, Pacer, Tapper, Diverter bool
	Pin                                                  string
	SecretValues                                         []string
}

func capabilitiesOf(t *testing.T, f transport.Factory) capabilities {
	t.Helper()
	var c capabilities
	_, c.Classifier = transport.As[transport.Classifier](f)
	if p, ok := transport.As[transport.ProtocolPinner](f); ok {
		c.Pinner, c.Pin = true, p.PinnedProtocolVersion()
	}
	if h, ok := transport.As[cassette.SecretHolder](f); ok {
		c.Secrets, c.SecretValues = true, h.Secrets()
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

// TestAsThroughTwoWrappers: a wrapper of a wrapper of each transport
// reaches each capability the transport has, and only those, with no
// forwarding method in the wrappers.
func TestAsThroughTwoWrappers(t *testing.T) {
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
	in := inprocess.New(mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil))
	for _, tc := range []struct {
		name string
		f    transport.Factory
		want capabilities
	}{
		{"stdio", std, capabilities{Secrets: true, SecretValues: []string{"s3cret"}}},
		{"sse", legacy, capabilities{Classifier: true, Pinner: true, Pin: sse.ProtocolVersion}},
		{"streamablehttp", streamable, capabilities{Classifier: true, Pacer: true, Tapper: true, Diverter: true}},
		{"inprocess", in, capabilities{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, capabilitiesOf(t, tc.f)); diff != "" {
				t.Errorf("capabilities of the factory mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, capabilitiesOf(t, twice(tc.f))); diff != "" {
				t.Errorf("capabilities through two wrappers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAsDiagnoserThroughTwoWrappers: a stdio connection's Diagnoser is
// found through two connection wrappers, and says how the child ended.
func TestAsDiagnoserThroughTwoWrappers(t *testing.T) {
	path, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1):", err)
	}
	f, err := stdio.New(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := twice(f).Transport()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, ok := conn.(transport.Diagnoser); ok {
		t.Fatal("the wrapped connection is a Diagnoser itself: the test proves nothing")
	}
	if _, err := conn.Read(ctx); err == nil {
		t.Fatal("Read from a child that exits at once: no error")
	}
	conn.Close()
	d, ok := transport.As[transport.Diagnoser](conn)
	if !ok {
		t.Fatal("As found no Diagnoser through two connection wrappers")
	}
	if dg := d.Diagnose(); dg == nil || !dg.Exited || dg.ExitCode != 0 {
		t.Errorf("Diagnose() = %+v, want an exit with code 0", dg)
	}
}

// tagger is a capability only this test knows: wrappers written before it
// reach it all the same.
type tagger interface{ Tag() string }

type tagged struct{ transport.Factory }

func (tagged) Tag() string { return "mine" }

// outer implements the capability itself: it is found before the one it
// wraps.
type outer struct{ wrapped }

func (outer) Tag() string { return "outer" }

func TestAsNewCapabilityNeedsNoWrapperChange(t *testing.T) {
	base := tagged{inprocess.New(mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil))}
	for _, tc := range []struct {
		name string
		f    transport.Factory
		want string // "" for none
	}{
		{"itself", base, "mine"},
		{"two wrappers", twice(base), "mine"},
		{"a wrapper that has its own", outer{wrapped{base}}, "outer"},
		{"not there", twice(base.Factory), ""},
		{"a wrapper of nothing", wrapped{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if tg, ok := transport.As[tagger](tc.f); ok {
				got = tg.Tag()
			}
			if got != tc.want {
				t.Errorf("As[tagger] tag = %q, want %q", got, tc.want)
			}
		})
	}
	if _, ok := transport.As[tagger](nil); ok {
		t.Error("As[tagger](nil) found one")
	}
}
