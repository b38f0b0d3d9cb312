package cassette

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// playTransport hands the go-sdk the replaying connection.
type playTransport struct{ c *playConn }

func (t playTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// playConn is the scheduler's adapter to an mcp.Connection: Write matches a
// live client message to a recorded one and serves it, Read hands out what
// the scheduler releases, in recorded order, and the session's recorded
// ending; a hold past Options.Wait fails its call.
type playConn struct {
	p   *player
	rep *report

	mu       sync.Mutex // guards the fields below
	s        *scheduler
	red      *redactor
	liveID   map[int]jsonrpc.ID  // served recorded call → the live request's id
	held     map[int]bool        // answers (and endings) served calls wait for, not yet released
	timers   map[int]*time.Timer // held answers → their bound, while they wait for requests the client has not made
	extra    []jsonrpc.Message   // error responses (mismatches, expired holds), delivered first
	ending   error               // the recorded ending, once delivered: Read returns it
	diag     *transport.Diagnosis
	isClosed bool
	wake     chan struct{} // closed and replaced whenever Read may have something new

	delayed  map[int]bool // lines a FaultDelay held back
	holds    []*time.Timer
	endFired bool // FaultEnd ended the session

	closed chan struct{} // closed by Close
}

func newPlayConn(p *player, rep *report) *playConn {
	return &playConn{p: p, rep: rep, s: newScheduler(p.pl), red: newRedactor(p.o),
		liveID: map[int]jsonrpc.ID{}, held: map[int]bool{}, delayed: map[int]bool{}, timers: map[int]*time.Timer{}, wake: make(chan struct{}), closed: make(chan struct{})}
}

func (c *playConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *playConn) Write(ctx context.Context, m jsonrpc.Message) error {
	canon, err := canonicalMessage(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed || c.ending != nil {
		return transport.ErrClosed
	}
	live, err := c.red.message(canon)
	if err != nil {
		return err
	}
	kind := liveKind(m)
	key := c.p.mt.key(kind, live)
	i, ok, named := c.p.cancelFor(c.s, c.liveID, m)
	if !named {
		i, ok = c.s.match(c.p.index[string(key)])
	}
	if !ok && !named {
		i, ok = c.s.reclaim(c.p.index[string(key)])
	}
	if !ok {
		if c.givesUp(m) {
			return nil
		}
		merr, void := c.p.mismatch(c.s, kind, key, live)
		c.fail(m, merr)
		if void >= 0 {
			c.s.void(void)
			c.settle()
		}
		c.signal()
		return nil
	}
	if i >= c.p.faults.end {
		c.endByFault() // the server is gone before it reads this message
		return nil
	}
	c.s.serve(i)
	if kind == kindCall {
		c.liveID[i] = m.(*jsonrpc.Request).ID
		switch h := c.s.awaits(i); {
		case !c.s.verdict(i):
			c.fail(m, &MismatchError{Cassette: c.p.c.File, Position: c.p.c.Line(i), Method: c.p.method(i),
				Reason: "the recorded request has no answer and no ending after it: nothing will answer it"})
		case h >= 0 && c.s.failed[h]:
			c.fail(m, &MismatchError{Cassette: c.p.c.File, Position: c.p.c.Line(i), Method: c.p.method(i),
				Reason: "the session's recorded end, which it waits for, was held past the bound: nothing will answer it"})
		case h >= 0 && !c.s.ready(h):
			c.held[h] = true
		}
	}
	c.settle()
	return nil
}

// givesUp reports whether m cancels a served call that the recording shows
// the client gave up (whether the recording caught the cancellation in time
// or not: the go-sdk sends it as the call returns). c.mu is held.
func (c *playConn) givesUp(m jsonrpc.Message) bool {
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.IsCall() || r.Method != "notifications/cancelled" {
		return false
	}
	id := cancelledID(r.Params)
	for line, live := range c.liveID {
		if liveIDKey(live) == id && c.p.pl.steps[line].giveUp {
			return true
		}
	}
	return false
}

// fail keeps err and, for a call, answers it with a JSON-RPC error carrying
// it. c.mu is held.
func (c *playConn) fail(m jsonrpc.Message, err *MismatchError) {
	c.rep.add(err)
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.extra = append(c.extra, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: CodeMismatch, Message: err.Error()}})
	}
}

// settle keeps the bound running for exactly the answers held for client
// requests the live client has not made (not while it owes the server an
// answer it is working on), stops the bounds of answers released, and
// wakes Read. c.mu is held.
func (c *playConn) settle() {
	for a := range c.held {
		t := c.timers[a]
		switch {
		case c.s.ready(a):
			delete(c.held, a)
			fallthrough
		case !c.s.heldForRequests(a):
			if t != nil {
				t.Stop()
				delete(c.timers, a)
			}
		case t == nil:
			c.timers[a] = time.AfterFunc(c.p.o.wait(), func() { c.expire(a) })
		}
	}
	c.signal()
}

// expire fails held line h, an answer or the session's end: each served
// call that waits for it gets a JSON-RPC error carrying a *MismatchError
// that names what it waited for.
func (c *playConn) expire(h int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed || c.timers[h] == nil {
		return
	}
	delete(c.timers, h)
	delete(c.held, h)
	waited, ok := c.s.expire(h)
	if !ok {
		return
	}
	reason := fmt.Sprintf("held %v for recorded messages the live client did not send: %s", c.p.o.wait(), c.p.describeAll(waited))
	for _, call := range c.waiting(h) {
		merr := &MismatchError{Cassette: c.p.c.File, Position: c.p.c.Line(call), Method: c.p.method(call), Reason: reason}
		c.rep.add(merr)
		c.extra = append(c.extra, &jsonrpc.Response{ID: c.liveID[call], Error: &jsonrpc.Error{Code: CodeMismatch, Message: merr.Error()}})
	}
	c.settle()
}

// waiting returns the served calls that wait for server line h, in
// recorded order. c.mu is held.
func (c *playConn) waiting(h int) []int {
	var calls []int
	for call := range c.liveID {
		if c.s.awaits(call) == h {
			calls = append(calls, call)
		}
	}
	slices.Sort(calls)
	return calls
}

func (c *playConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		if c.isClosed {
			c.mu.Unlock()
			return nil, io.EOF
		}
		if len(c.extra) > 0 {
			m := c.extra[0]
			c.extra = c.extra[1:]
			c.mu.Unlock()
			return m, nil
		}
		if c.ending != nil {
			c.mu.Unlock()
			return nil, c.ending
		}
		if i, ok := c.s.next(); ok {
			if i >= c.p.faults.end {
				c.endByFault()
				err := c.ending
				c.mu.Unlock()
				return nil, err
			}
			m, err := c.deliver(i)
			if d := c.p.faults.delay[i]; d > 0 && !c.delayed[i] && err == nil {
				c.hold(i, m, d)
				c.mu.Unlock()
				continue
			}
			c.mu.Unlock()
			return m, err
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-wake:
		}
	}
}

// deliver returns recorded server line i: a message (an answer carrying
// the live id of its call), or the session's recorded end. c.mu is held.
func (c *playConn) deliver(i int) (jsonrpc.Message, error) {
	st := &c.p.pl.steps[i]
	if st.terminal {
		in := &c.p.c.Interactions[i]
		c.ending, c.diag = endingError(c.p.c, i), diagnosis(c.p.c, i)
		if in.Ending.End == EndEOF {
			c.ending = io.EOF
		}
		return nil, c.ending
	}
	info, _ := scanMessage(c.p.canon[i])
	m := info.toMessage()
	if st.answer {
		if id, ok := c.liveID[int(st.after)]; ok {
			m.(*jsonrpc.Response).ID = id
		}
	}
	return m, nil
}

// endByFault ends the session as FaultEnd asks: the server's output
// ends. c.mu is held.
func (c *playConn) endByFault() {
	c.endFired = true
	if c.ending == nil {
		// The connection broke under the calls in flight: their outcome
		// is unknown, as when a server dies mid-call.
		c.ending = c.p.faultEnding()
		c.diag = &transport.Diagnosis{Err: c.ending}
	}
	c.signal()
}

// hold delivers m, recorded line i, d later (FaultDelay). c.mu is held.
func (c *playConn) hold(i int, m jsonrpc.Message, d time.Duration) {
	c.delayed[i] = true
	c.holds = append(c.holds, time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.isClosed && c.ending == nil {
			c.extra = append(c.extra, m)
			c.signal()
		}
	}))
}

// excused reports whether client line i could not be sent because a fault
// ended the session before it.
func (c *playConn) excused(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endFired && i >= c.p.faults.end
}

func (c *playConn) SessionID() string { return "" }

// Diagnose returns what the recording knows of the server's end, once the
// session has reached it: the child's exit status, the tail of its
// standard error, the error that ended reading.
func (c *playConn) Diagnose() *transport.Diagnosis {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.diag == nil && c.isClosed {
		for i := range c.p.c.Interactions {
			if in := &c.p.c.Interactions[i]; in.Kind == KindClose && in.HTTP == nil && in.Ending.Stderr != "" {
				return diagnosis(c.p.c, i)
			}
		}
	}
	return c.diag
}

// Close ends the session and stops every hold.
func (c *playConn) Close() error {
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

// unused returns the client lines never served.
func (c *playConn) unused() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.s.unused()
}

// liveKind classifies a live message.
func liveKind(m jsonrpc.Message) byte {
	if r, ok := m.(*jsonrpc.Request); ok {
		if r.IsCall() {
			return kindCall
		}
		return kindNote
	}
	return kindResponse
}

// faultEnding is the error of the calls FaultEnd cut off: the connection
// broke under them, their outcome unknown.
func (p *player) faultEnding() *RecordedError {
	return &RecordedError{Cassette: p.c.File, Line: p.c.Line(min(p.faults.end, len(p.c.Interactions)-1)),
		Text: "injected fault " + p.faults.endText + ": the server ended the session", Class: transport.ClassTransport}
}

// endingError returns the error a replayed session or request ends with at
// ending line i.
func endingError(c *Cassette, i int) error {
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
	return &RecordedError{Cassette: c.File, Line: c.Line(i), Text: text, Class: e.Class}
}

// diagnosis returns what ending line i records of the server's end.
func diagnosis(c *Cassette, i int) *transport.Diagnosis {
	e := c.Interactions[i].Ending
	d := &transport.Diagnosis{Stderr: []byte(e.Stderr)}
	if e.Exit != nil {
		d.Exited, d.ExitCode, d.Signal = true, e.Exit.Code, e.Exit.Signal
	}
	if e.End == EndError {
		d.Err = endingError(c, i)
	}
	if !d.Exited && d.Err == nil && len(d.Stderr) == 0 {
		return nil
	}
	return d
}
