package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// drainTimeout bounds how long Close waits for the child's stderr to reach
// end of file once its group is dead; only a process that left the group
// keeps it open that long.
const drainTimeout = 500 * time.Millisecond

// A Conn is the connection to one child process. It implements
// [mcp.Connection] (framing is the go-sdk's newline-delimited JSON, each
// message decoded once) and [transport.Diagnoser].
type Conn struct {
	rpc    *lineConn // newline-delimited JSON over stdout and stdin
	proc   *proc
	stdout *os.File // our end of the child's stdout
	stderr *os.File // our end of the child's stderr
	tail   *ring    // the tail of the child's stderr
	tee    io.Writer

	closeGrace, termGrace time.Duration

	drained chan struct{}              // closed when the stderr drainer returns
	readErr atomic.Pointer[FrameError] // the frame error that ended reading, if any

	closing   chan struct{} // closed when Close starts
	closeOnce sync.Once
	closeErr  error // set once by closeOnce
}

func newConn(pr *proc, p *pipes, o *Options) *Conn {
	c := &Conn{
		proc:       pr,
		stdout:     p.outR,
		stderr:     p.errR,
		tail:       newRing(o.StderrBytes),
		tee:        o.Stderr,
		closeGrace: o.CloseGrace,
		termGrace:  o.TermGrace,
		drained:    make(chan struct{}),
		closing:    make(chan struct{}),
	}
	// The frame limiter is the bound; the cap on one value (counted as the
	// go-sdk counts it, including read-ahead) only catches a value spread
	// over lines. Close ends stdin first; stdout is closed after the child
	// is dead, which ends the reading goroutine.
	lr := &frameReader{r: p.outR, limit: o.MaxFrameBytes}
	c.rpc = newLineConn(lr, p.inW, 2*o.MaxFrameBytes+2)
	go c.drain()
	return c
}

// drain copies the child's stderr into the tail ring (and the tee) until end
// of file.
func (c *Conn) drain() {
	defer close(c.drained)
	// A small buffer until the child writes: most write nothing.
	buf := make([]byte, 512)
	tee := c.tee
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			c.tail.Write(buf[:n])
			if tee != nil {
				if _, err := tee.Write(buf[:n]); err != nil {
					tee = nil
				}
			}
			if len(buf) < 32<<10 {
				buf = make([]byte, 32<<10)
			}
		}
		if err != nil {
			return
		}
	}
}

// Pid returns the child's process id. The child leads its own process group,
// so this is also the group id (on Windows, the key of its job object): see
// [GroupAlive].
func (c *Conn) Pid() int { return c.proc.pid }

// SessionID returns "": a stdio connection has no session id.
func (c *Conn) SessionID() string { return "" }

// Write sends one message to the child's stdin.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.proc.requested() // it may start helpers: look for them soon
	}
	return c.rpc.Write(ctx, msg)
}

// Descendants returns the pids of the child's descendants that are running,
// in its process group or out of it. It lists those this connection's
// scans have seen. See the package documentation for what they cannot
// see. On Windows it lists every process of the child's job object but the
// child. After Close has returned nil it is empty.
func (c *Conn) Descendants() []int { return c.proc.descendants() }

// Read returns the next message from the child. When the child ends its
// output on its own, Read waits (up to CloseGrace) for the exit status. It
// then returns an [*ExitError]. A bad frame ends the connection with a
// [*FrameError], returned by every later Read.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if fe := c.readErr.Load(); fe != nil {
		return nil, fe
	}
	select {
	case <-c.closing:
	default:
		c.proc.heard() // after the child's last message, before waiting for the next
	}
	msg, err := c.rpc.Read(ctx)
	if err == nil {
		return msg, nil
	}
	select {
	case <-c.closing: // we ended it
		return nil, err
	default:
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, err
	}
	if errors.Is(err, io.EOF) {
		return nil, c.exitError(ctx, err)
	}
	var fe *FrameError
	if !errors.As(err, &fe) {
		fe = &FrameError{Err: err}
	}
	c.readErr.CompareAndSwap(nil, fe)
	fe = c.readErr.Load()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, c.exitError(ctx, fe)
	}
	return nil, fe
}

// exitError waits, up to CloseGrace, for the child's exit status and the end
// of its stderr, and describes the exit.
func (c *Conn) exitError(ctx context.Context, cause error) error {
	t := time.NewTimer(c.closeGrace)
	defer t.Stop()
wait:
	for _, ch := range []<-chan struct{}{c.proc.exited, c.drained} {
		select {
		case <-ch:
		case <-t.C:
			break wait
		case <-ctx.Done():
			break wait
		case <-c.closing:
			break wait
		}
	}
	st, exited := c.proc.exitStatus()
	return &ExitError{
		Pid:      c.proc.pid,
		Exited:   exited,
		ExitCode: st.code,
		Signal:   st.signal,
		Stderr:   c.tail.Bytes(),
		Err:      cause,
	}
}

// Diagnose reports how the child ended: its exit status, the tail of its
// stderr, and the frame error that ended reading, if any. It returns nil
// while the child runs and reading has not failed. It does not block.
func (c *Conn) Diagnose() *transport.Diagnosis {
	st, exited := c.proc.exitStatus()
	fe := c.readErr.Load()
	if !exited && fe == nil {
		return nil
	}
	d := &transport.Diagnosis{
		Exited:   exited,
		ExitCode: st.code,
		Signal:   st.signal,
		Stderr:   c.tail.Bytes(),
	}
	if fe != nil {
		d.Err = fe
	}
	return d
}

// Close ends the child. It closes the child's stdin (the MCP stream) and
// waits CloseGrace for the child to exit. It sends SIGTERM to its process
// group and waits TermGrace. Then it sends SIGKILL to the group in every
// case, so no grandchild survives, and reaps the child. It returns within
// CloseGrace+TermGrace+5.5s. It returns nil unless the child or another
// process of its group could not be reaped ("stdio: child did not exit
// after SIGKILL"); the child is then reaped in the background once it
// exits. On Windows, after CloseGrace it terminates the child's job
// object, the child and every descendant. It waits until the job is empty
// (see the package documentation).
//
// Close may be called several times, concurrently; every call returns once
// the first has finished, with its result.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.proc.look() // before the child can exit and orphan its children
		c.rpc.Close() // closes stdin, and unblocks Read
		// Drop whatever the child still writes: a child blocked writing a
		// reply nobody will read could not see the end of its input, and
		// would wait for the signals instead of exiting within CloseGrace.
		discarded := make(chan struct{})
		go func() { defer close(discarded); io.Copy(io.Discard, c.stdout) }()
		c.closeErr = c.proc.stop(c.closeGrace, c.termGrace)
		c.stdout.Close() // ends the reading goroutine even if a process escaped the group
		<-discarded
		if !waitFor(c.drained, drainTimeout) {
			c.stderr.Close()
			waitFor(c.drained, drainTimeout)
		}
		c.stderr.Close()
	})
	return c.closeErr
}

// waitFor reports whether ch was closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
