package cassette_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// diagnosing wraps a factory so that its connections report a stderr tail,
// as a stdio child's do.
type diagnosing struct {
	transport.Factory
	stderr string
}

func (d diagnosing) Transport() (mcp.Transport, error) {
	tr, err := d.Factory.Transport()
	return diagnosingTransport{tr, d.stderr}, err
}

type diagnosingTransport struct {
	mcp.Transport
	stderr string
}

func (t diagnosingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return diagnosingConn{c, t.stderr}, err
}

type diagnosingConn struct {
	mcp.Connection
	stderr string
}

func (c diagnosingConn) Diagnose() *transport.Diagnosis {
	return &transport.Diagnosis{Exited: true, Stderr: []byte(c.stderr)}
}

func TestStderrRecordedWhenAsked(t *testing.T) {
	leakcheck.Check(t)
	live := diagnosing{inprocess.New(newCounter().srv), "listening with key s3cr3t\n"}
	for _, asked := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "stderr.jsonl")
		opts := &cassette.Options{Stderr: asked, Secrets: []string{"s3cr3t"}}
		if _, err := session(t, cassette.Record(live, path, opts), script[0]); err != nil {
			t.Fatal(err)
		}
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range c.Interactions {
			if in.Kind == cassette.KindStderr {
				got = append(got, in.Text)
			}
		}
		var want []string
		if asked {
			want = []string{"listening with key REDACTED-1\n"}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stderr=%v: recorded stderr mismatch (-want +got):\n%s", asked, diff)
		}
		if !asked {
			continue
		}
		// The replaying connection reports the recorded stderr.
		tr, err := c.Player(nil).Transport()
		if err != nil {
			t.Fatal(err)
		}
		conn, _ := tr.Connect(context.Background())
		d, ok := conn.(transport.Diagnoser)
		if !ok || d.Diagnose() == nil || string(d.Diagnose().Stderr) != want[0] {
			t.Errorf("replaying connection's diagnosis = %v, want the recorded stderr", d)
		}
		conn.Close()
		_ = os.Remove(path)
	}
}
