package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/test/opmatrix"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Modes of the operation matrix that run mcprig.
const (
	mcprigRecorded = "mcprig record"
	mcprigReplayed = "mcprig replay"
)

// TestOperationMatrixMcprig is test/opmatrix's TestOperationMatrix
// through mcprig: every operation, both ways, against each server over
// stdio (mcprig record -- CMD, a recording stdio proxy the client launches;
// mcprig replay FILE) and Streamable HTTP, stateful and stateless (mcprig
// record --upstream URL, a recording HTTP proxy; mcprig replay --listen),
// at both revisions: each cell gives what it gave live, two recordings have
// the same bytes, cassette.Verify of a recording against the live server
// finds no drift, and each mcprig ends by itself (the client ends the
// session) with status 0. mcprig runs in-process servers nowhere, and
// records no legacy SSE: those cells cannot exist. It logs its table
// (go test -v -run TestOperationMatrixMcprig).
func TestOperationMatrixMcprig(t *testing.T) {
	rep := opmatrix.NewReport()
	t.Run("group", func(t *testing.T) {
		for _, g := range opmatrix.Groups() {
			if g.Kind != opmatrix.Stdio && g.Kind != opmatrix.HTTP && g.Kind != opmatrix.Stateless {
				continue
			}
			t.Run(strings.ReplaceAll(g.String(), " ", "-"), func(t *testing.T) {
				t.Parallel()
				mcprigGroup(t, rep, g)
			})
		}
	})
	t.Log("\n" + rep.Table([]string{opmatrix.Live, mcprigRecorded, mcprigReplayed}) +
		"  in-process, and legacy SSE, through mcprig: mcprig record proxies a stdio child or a Streamable HTTP server\n")
	for _, f := range rep.Failures() {
		t.Error(f)
	}
}

// mcprigGroup runs a group's sessions through mcprig.
func mcprigGroup(t *testing.T, rep *opmatrix.Report, g opmatrix.Group) {
	l := opmatrix.Start(t, g)
	l.Fresh(t)
	live := opmatrix.Session(t, g, l.Factory(t))
	rep.Judge(g, opmatrix.Live, live, live)
	first := rep.RecordTwice(t, g, mcprigRecorded, live, func(path string) map[opmatrix.Key]opmatrix.Outcome {
		l.Fresh(t)
		return mcprigSession(t, g, l, path, "record")
	}, func() transport.Factory { l.Fresh(t); return l.Factory(t) })
	if first != "" {
		rep.Judge(g, mcprigReplayed, live, mcprigSession(t, g, l, first, "replay"))
	}
}

// idle ends the mcprig HTTP proxy of a session that has neither a DELETE
// nor a listen of list changes (stateless serving at 2025-11-25).
func idle(g opmatrix.Group) []string {
	if g.Kind == opmatrix.Stateless && g.Rev == "2025-11-25" {
		return []string{"--idle", "1s"}
	}
	return nil
}

// mcprigSession runs the script through "mcprig record" (to path) or
// "mcprig replay" (of path), and checks that mcprig ended by itself, well.
func mcprigSession(t *testing.T, g opmatrix.Group, l *opmatrix.Running, path, cmd string) map[opmatrix.Key]opmatrix.Outcome {
	t.Helper()
	if g.Kind == opmatrix.Stdio {
		args := []string{"replay", path}
		if cmd == "record" {
			args = []string{"record", "-o", path, "--env", "OPMATRIX_SERVER=" + string(g.Server), "--not-secret", "OPMATRIX_SERVER", "--env", "GORACE"}
			if g.Tasks {
				args = append(args, "--env", opmatrix.TasksEnv+"=1", "--not-secret", opmatrix.TasksEnv)
			}
			args = append(args, "--", self(t))
		}
		w := &exitWatch{f: mcprig(t, nil, args...)}
		out := opmatrix.Session(t, g, w)
		if err := w.exitedWell(); err != nil {
			t.Errorf("%s: mcprig %s: %v", g, cmd, err)
		}
		return out
	}
	args := append([]string{"replay", "--listen", "127.0.0.1:0"}, idle(g)...)
	args = append(args, path)
	if cmd == "record" {
		args = append([]string{"record", "-o", path, "--upstream", l.URL()}, idle(g)...)
	}
	s := serveMcprig(t, nil, args...)
	f, err := streamablehttp.New(s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := opmatrix.Session(t, g, f)
	if code := s.waitWithin(t, 20*time.Second); code != 0 {
		t.Errorf("%s: mcprig %s exited %d\nstderr:\n%s", g, cmd, code, s.stderr)
	}
	return out
}

// An exitWatch is a factory that keeps its connections, to tell after the
// session how each stdio child ended.
type exitWatch struct {
	f     transport.Factory
	mu    sync.Mutex
	conns []mcp.Connection
}

func (w *exitWatch) Kind() transport.Kind { return w.f.Kind() }

func (w *exitWatch) Transport() (mcp.Transport, error) {
	tr, err := w.f.Transport()
	if err != nil {
		return nil, err
	}
	return watchedTransport{tr, w}, nil
}

type watchedTransport struct {
	mcp.Transport
	w *exitWatch
}

func (t watchedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if c != nil {
		t.w.mu.Lock()
		t.w.conns = append(t.w.conns, c)
		t.w.mu.Unlock()
	}
	return c, err
}

// exitedWell reports a child that did not exit, by itself, with status 0.
func (w *exitWatch) exitedWell() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.conns) == 0 {
		return errors.New("no child was started")
	}
	for _, c := range w.conns {
		d, ok := transport.As[transport.Diagnoser](c)
		if !ok {
			return fmt.Errorf("a %T says nothing of its end", c)
		}
		switch dg := d.Diagnose(); {
		case dg == nil || !dg.Exited:
			return errors.New("the child has not exited")
		case dg.ExitCode != 0:
			return fmt.Errorf("the child exited %d (%s)\nstderr:\n%s", dg.ExitCode, dg.Signal, dg.Stderr)
		}
	}
	return nil
}

// waitWithin waits for the child to exit on its own, at most d, and
// returns its exit code.
func (s *served) waitWithin(t *testing.T, d time.Duration) int {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Errorf("mcprig: %v", err)
			return -1
		}
		return 0
	case <-timer.C:
		t.Errorf("mcprig did not exit within %v of the session's end\nstderr:\n%s", d, s.stderr)
		return -1
	}
}
