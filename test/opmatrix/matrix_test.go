package opmatrix_test

import (
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/test/opmatrix"
	"github.com/looprig/mcp/transport"
)

func TestMain(m *testing.M) {
	opmatrix.ServeIfChild()
	os.Exit(leakcheck.Main(m))
}

var modes = []string{opmatrix.Live, opmatrix.Recorded, opmatrix.Replayed}

// TestOperationMatrix makes every operation, both ways, against each
// server over each transport at each revision, live, recorded with
// cassette.Open (twice: the same bytes; Verify of it against the live
// server finds no drift) and replayed from the cassette: each cell gives
// what live gave. It logs the table (go test -v -run TestOperationMatrix).
// cmd/mcprig's TestOperationMatrixMcprig does the same through mcprig
// record and mcprig replay.
func TestOperationMatrix(t *testing.T) {
	rep := opmatrix.NewReport()
	t.Run("group", func(t *testing.T) {
		for _, g := range opmatrix.Groups() {
			t.Run(strings.ReplaceAll(g.String(), " ", "-"), func(t *testing.T) {
				t.Parallel()
				runGroup(t, rep, g)
			})
		}
	})
	t.Log("\n" + rep.Table(modes))
	for _, f := range rep.Failures() {
		t.Error(f)
	}
}

// runGroup runs a group's sessions, one after the other, on one server.
// Groups run in parallel, so that what one leaves behind would show in
// another's leak check: TestMain's leakcheck.Main checks them all once
// they are done.
func runGroup(t *testing.T, rep *opmatrix.Report, g opmatrix.Group) {
	l := opmatrix.Start(t, g)
	l.Fresh(t)
	live := opmatrix.Session(t, g, l.Factory(t))
	rep.Judge(g, opmatrix.Live, live, live)
	first := rep.RecordTwice(t, g, opmatrix.Recorded, live, func(path string) map[opmatrix.Key]opmatrix.Outcome {
		l.Fresh(t)
		f, err := cassette.Open(path, l.Factory(t), &cassette.Options{Mode: cassette.ModeRecord})
		if err != nil {
			t.Fatal(err)
		}
		out := opmatrix.Session(t, g, f)
		if err := f.Close(); err != nil {
			t.Errorf("%s: recording: %v", g, err)
		}
		return out
	}, func() transport.Factory { l.Fresh(t); return l.Factory(t) })
	if first == "" {
		return
	}
	var through transport.Factory
	if g.Kind == opmatrix.HTTP || g.Kind == opmatrix.Stateless {
		through = l.Factory(t) // the replay goes through the live factory's transport
	}
	f, err := cassette.Open(first, through, &cassette.Options{Mode: cassette.ModeReplay})
	if err != nil {
		t.Fatal(err)
	}
	got := opmatrix.Session(t, g, f)
	rep.Judge(g, opmatrix.Replayed, live, got)
	rep.Check(g, "a clean replay", errText(f.Close()))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
