package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskPeerChildEnv, set to a directory, makes this test binary the task
// peer as a stdio child (TestMain): it holds the answer to its first
// tools/call until the file "release" appears in the directory (writing
// the file "arrived" when the call arrives), and, when
// its stdin ends, writes what it counted to the file "counts.json" there.
const taskPeerChildEnv = "LOOPRIG_TASKPEER_CHILD"

// peerReport is what the task peer child writes at its end.
type peerReport struct {
	Created int
	Counts  counts
	Status  string // of task-1
}

// runTaskPeerChild serves the task peer on stdin and stdout, for
// TestMain.
func runTaskPeerChild(dir string) {
	p := newTaskPeer()
	p.hold = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.arrived:
			_ = os.WriteFile(filepath.Join(dir, "arrived"), nil, 0o600)
		case <-ctx.Done():
			return
		}
		// Polling until the session's end: the release is the test's
		// doing, in another process.
		if testkit.PollUntil(ctx, func() bool { return exists(filepath.Join(dir, "release")) }) {
			close(p.hold)
		}
	}()
	err := p.server().Run(ctx, &mcp.StdioTransport{})
	data, _ := json.Marshal(peerReport{Created: p.created(), Counts: p.counts(), Status: p.status("task-1")})
	_ = os.WriteFile(filepath.Join(dir, "counts.json"), data, 0o600)
	if err != nil && !errors.Is(err, context.Canceled) {
		os.Exit(1)
	}
}

// Over stdio too, a caller that gives up before the reply that creates the
// task came back has the task cancelled once the reply comes, drained by
// Close; the child created the task once and saw it cancelled.
func TestStdioTaskCancelledWhenCallerGivesUpBeforeHandle(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := stdio.New(exe, nil, &stdio.Options{Env: map[string]string{taskPeerChildEnv: dir, "GORACE": "atexit_sleep_ms=0"},
		CloseGrace: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Tasks: true, Limits: fastPolls}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	client.SetLateWait(c, time.Minute) // past the test's deadline: the reply comes when the test releases it
	ctx, cancel := context.WithCancel(testkit.Context(t))
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "forever", map[string]any{"hint": 1})
		errc <- err
	}()
	// The child says when the tools/call arrived, whose answer it holds.
	testkit.Poll(t, "the tools/call to reach the child", func() bool { return exists(filepath.Join(dir, "arrived")) })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool: %v, want context.Canceled", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "counts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got peerReport
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := peerReport{Created: 1, Counts: counts{Execs: map[string]int{}, Cancels: 1}, Status: "cancelled"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the child's counts mismatch (-want +got):\n%s", diff)
	}
}

// exists reports whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
