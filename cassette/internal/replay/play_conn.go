package replay

import (
	"context"
	"fmt"
	"github.com/looprig/mcp/cassette/internal/errs"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewTransport returns the transport that hands the go-sdk c, the
// replaying connection.
func NewTransport(c *PlayConn) mcp.Transport { return connTransport{c} }

// connTransport hands the go-sdk the replaying connection.
type connTransport struct{ c *PlayConn }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// PlayConn is the decider's adapter to an mcp.Connection. Write hands a
// live client message to the decider and answers as it says. Read hands
// out what the decider releases, in recorded order, and the session's
// recorded ending. A hold past Config.Wait fails its call. PlayConn does
// only I/O: the decisions are the decider's (decide.go).
type PlayConn struct {
	p   *Player
	rep *Report

	mu       sync.Mutex // guards the fields below
	d        *decider
	red      *redact.Redactor
	timers   map[int]*time.Timer // held answers → their bound, while they wait for requests the client has not made
	extra    []jsonrpc.Message   // error responses (mismatches, expired holds) and delayed lines, delivered first
	ending   error               // the recorded ending, once delivered: Read returns it
	diag     *transport.Diagnosis
	isClosed bool
	wake     chan struct{} // closed and replaced whenever Read may have something new
	holds    []*time.Timer // format.FaultDelay's

	closed chan struct{} // closed by Close
}

// NewPlayConn returns the replaying connection of p; it keeps its
// mismatches in rep.
func NewPlayConn(p *Player, rep *Report) *PlayConn {
	return &PlayConn{p: p, rep: rep, d: newDecider(p), red: redact.New(p.o.Redact),
		timers: map[int]*time.Timer{}, wake: make(chan struct{}), closed: make(chan struct{})}
}

func (c *PlayConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *PlayConn) Write(ctx context.Context, m jsonrpc.Message) error {
	canon, err := format.CanonicalMessage(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed || c.ending != nil {
		return transport.ErrClosed
	}
	live, err := c.red.Message(canon)
	if err != nil {
		return err
	}
	kind := liveKind(m)
	dec := c.d.client(&liveMsg{msg: m, kind: kind, key: string(c.p.mt.key(kind, live)), canon: live})
	switch dec.act {
	case actAccept:
		return nil
	case actEnd:
		c.endByFault(dec.err)
		return nil
	case actRefuse, actServe:
		if dec.merr != nil {
			c.fail(m, dec.merr)
		}
	}
	c.syncTimers()
	return nil
}

// fail keeps err and, for a call, answers it with a JSON-RPC error carrying
// it. c.mu is held.
func (c *PlayConn) fail(m jsonrpc.Message, merr *errs.Mismatch) {
	err := c.p.o.Errors.Mismatch(merr)
	c.rep.Add(err)
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.extra = append(c.extra, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: errs.CodeMismatch, Message: err.Error()}})
	}
}

// syncTimers runs a Config.Wait timer for exactly the held lines the
// decider says are bounded, and wakes Read. c.mu is held.
func (c *PlayConn) syncTimers() {
	run := c.d.bounds()
	for a, t := range c.timers {
		if !slices.Contains(run, a) {
			t.Stop()
			delete(c.timers, a)
		}
	}
	for _, a := range run {
		if c.timers[a] == nil {
			c.timers[a] = time.AfterFunc(c.p.o.Wait, func() { c.expire(a) })
		}
	}
	c.signal()
}

// expire fails held line h, an answer or the session's end. Each served
// call that waits for it gets a JSON-RPC error. The error carries a
// *errs.Mismatch that names what the call waited for.
func (c *PlayConn) expire(h int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed || c.timers[h] == nil {
		return
	}
	delete(c.timers, h)
	calls, merrs, ok := c.d.expire(h)
	if !ok {
		return
	}
	for k, call := range calls {
		err := c.p.o.Errors.Mismatch(merrs[k])
		c.rep.Add(err)
		c.extra = append(c.extra, &jsonrpc.Response{ID: c.d.liveID[call], Error: &jsonrpc.Error{Code: errs.CodeMismatch, Message: err.Error()}})
	}
	c.syncTimers()
}

func (c *PlayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, wake, err := c.take()
		if wake == nil {
			return m, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-wake:
		}
	}
}

// take returns what Read returns next, or, when there is nothing yet, the
// channel closed when there may be.
func (c *PlayConn) take() (jsonrpc.Message, <-chan struct{}, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		switch {
		case c.isClosed:
			return nil, nil, io.EOF
		case len(c.extra) > 0:
			m := c.extra[0]
			c.extra = c.extra[1:]
			return m, nil, nil
		case c.ending != nil:
			return nil, nil, c.ending
		}
		dec, ok := c.d.next()
		if !ok {
			return nil, c.wake, nil
		}
		switch dec.act {
		case actEnd:
			c.endByFault(dec.err)
			return nil, nil, c.ending
		case actDelay:
			m, _ := c.deliver(dec.line)
			c.hold(m, dec.delay)
			continue
		}
		m, err := c.deliver(dec.line)
		return m, nil, err
	}
}

// deliver returns recorded server line i: a message (an answer carrying
// the live id of its call), or the session's recorded end. c.mu is held.
func (c *PlayConn) deliver(i int) (jsonrpc.Message, error) {
	st := &c.p.pl.steps[i]
	if st.terminal {
		in := &c.p.c.Interactions[i]
		c.ending, c.diag = c.p.endingError(i), c.p.diagnosis(i)
		if in.Ending.End == format.EndEOF {
			c.ending = io.EOF
		}
		return nil, c.ending
	}
	info, _ := format.ScanMessage(c.p.answer(i))
	m := info.ToMessage()
	if st.answer {
		if id, ok := c.d.liveID[int(st.after)]; ok {
			m.(*jsonrpc.Response).ID = id
		}
	}
	return m, nil
}

// endByFault ends the session as format.FaultEnd asks: the server's output ends
// with err. c.mu is held.
func (c *PlayConn) endByFault(err error) {
	if c.ending == nil {
		// The connection broke under the calls in flight: their outcome
		// is unknown, as when a server dies mid-call.
		c.ending = err
		c.diag = &transport.Diagnosis{Err: err}
	}
	c.signal()
}

// hold delivers m d later (format.FaultDelay). c.mu is held.
func (c *PlayConn) hold(m jsonrpc.Message, d time.Duration) {
	c.holds = append(c.holds, time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.isClosed && c.ending == nil {
			c.extra = append(c.extra, m)
			c.signal()
		}
	}))
}

// Excused reports whether client line i could not be sent because a fault
// ended the session before it.
func (c *PlayConn) Excused(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.d.Excused(i)
}

func (c *PlayConn) SessionID() string { return "" }

// Diagnose returns what the recording knows of the server's end, once the
// session has reached it. That is the child's exit status, the tail of its
// standard error, and the error that ended reading.
func (c *PlayConn) Diagnose() *transport.Diagnosis {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.diag == nil && c.isClosed {
		for i := range c.p.c.Interactions {
			if in := &c.p.c.Interactions[i]; in.Kind == format.KindClose && in.HTTP == nil && in.Ending.Stderr != "" {
				return c.p.diagnosis(i)
			}
		}
	}
	return c.diag
}

// Close ends the session and stops every hold.
func (c *PlayConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isClosed {
		c.isClosed = true
		close(c.closed)
		for _, t := range c.timers {
			t.Stop()
		}
		c.timers = nil
		for _, t := range c.holds {
			t.Stop()
		}
	}
	return nil
}

// Unused returns the client lines never served.
func (c *PlayConn) Unused() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.d.s.Unused()
}

// liveKind classifies a live message.
func liveKind(m jsonrpc.Message) byte {
	if r, ok := m.(*jsonrpc.Request); ok {
		if r.IsCall() {
			return format.MsgCall
		}
		return format.MsgNote
	}
	return format.MsgResponse
}

// faultEnding is the error of the calls format.FaultEnd cut off: the connection
// broke under them, their outcome unknown.
func (p *Player) faultEnding() error {
	return p.o.Errors.Recorded(&errs.Recorded{Cassette: p.c.File, Line: p.c.Line(min(p.faults.end, len(p.c.Interactions)-1)),
		Text: "injected fault " + p.faults.endText + ": the server ended the session", Class: transport.ClassTransport})
}

// endingError returns the error a replayed session or request ends with at
// ending line i.
func (p *Player) endingError(i int) error {
	c := p.c
	e := c.Interactions[i].Ending
	text := e.Error
	switch {
	case text != "":
	case e.Exit != nil && e.Exit.Signal != "":
		text = "the server was killed by " + e.Exit.Signal
	case e.Exit != nil:
		text = fmt.Sprintf("the server exited with status %d", e.Exit.Code)
	default:
		text = "the server ended the session (" + e.End + ")"
	}
	return p.o.Errors.Recorded(&errs.Recorded{Cassette: c.File, Line: c.Line(i), Text: text, Class: e.Class})
}

// diagnosis returns what ending line i records of the server's end.
func (p *Player) diagnosis(i int) *transport.Diagnosis {
	e := p.c.Interactions[i].Ending
	d := &transport.Diagnosis{Stderr: []byte(e.Stderr)}
	if e.Exit != nil {
		d.Exited, d.ExitCode, d.Signal = true, e.Exit.Code, e.Exit.Signal
	}
	if e.End == format.EndError {
		d.Err = p.endingError(i)
	}
	if !d.Exited && d.Err == nil && len(d.Stderr) == 0 {
		return nil
	}
	return d
}
