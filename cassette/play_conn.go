package cassette

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type playTransport struct{ c *playConn }

func (t playTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// playConn serves a message-level cassette. A live client message is
// matched to the first unserved recorded client message like it, wherever
// it is; what the recording sent back is released by the rules of the
// package documentation ("Concurrent requests"): a response once its call
// has been served, every server response recorded before the call has
// been released, and every client response recorded between the call and
// it has been served; any other server message once every client message
// recorded before it has been served. A response held longer than
// Options.Wait fails with a *MismatchError.
type playConn struct {
	p  *Player
	pl *msgPlan

	mu          sync.Mutex // guards the fields below
	red         *redactor
	served      []bool              // client messages matched by a live message
	maxServed   int                 // the last served client line; -1 before any
	next        int                 // first client line neither served nor passed (a notification before maxServed)
	released    []bool              // server responses released (or failed, see expire)
	firstHeld   int                 // first server response not released; client lines before it are in order
	maxReleased int                 // the last released server response; -1 before any
	delivered   []bool              // server lines handed to Read
	deliverFrom int                 // no undelivered server line before it
	held        map[int]*time.Timer // server responses whose call is served but which are not released
	liveID      map[int]jsonrpc.ID  // live id of each served recorded call
	extra       []jsonrpc.Message   // error responses (mismatches, expired holds), delivered first
	mismatches  []error             // every *MismatchError so far
	wake        chan struct{}       // closed and replaced whenever Read may have something new
	isClosed    bool
	closeErr    error

	closed chan struct{} // closed by Close
}

func newPlayConn(p *Player) *playConn {
	n := len(p.c.Interactions)
	c := &playConn{
		p:           p,
		pl:          p.plan,
		red:         newRedactor(p.opts),
		served:      make([]bool, n),
		maxServed:   -1,
		released:    make([]bool, n),
		maxReleased: -1,
		delivered:   make([]bool, n),
		held:        map[int]*time.Timer{},
		liveID:      map[int]jsonrpc.ID{},
		wake:        make(chan struct{}),
		closed:      make(chan struct{}),
	}
	c.advance()
	return c
}

// advance moves next and firstHeld forward. c.mu is held.
func (c *playConn) advance() {
	n := len(c.served)
	for c.next < n && (!c.pl.client[c.next] || c.served[c.next] || c.next < c.maxServed && c.p.c.isNotification(c.next)) {
		c.next++
	}
	for c.firstHeld < n && (!c.pl.response[c.firstHeld] || c.released[c.firstHeld]) {
		c.firstHeld++
	}
}

func (c *playConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
}

// isReleased reports whether server line k may be delivered. c.mu is held.
func (c *playConn) isReleased(k int) bool {
	if c.pl.response[k] {
		return c.released[k]
	}
	return k < c.next
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
		if m, ok := c.take(); ok {
			c.mu.Unlock()
			return m, nil
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

// take returns the first released server message not yet delivered, in
// recorded order. c.mu is held.
func (c *playConn) take() (jsonrpc.Message, bool) {
	n := len(c.served)
	for c.deliverFrom < n && (!c.pl.server[c.deliverFrom] || c.delivered[c.deliverFrom]) {
		c.deliverFrom++
	}
	limit := min(max(c.next, c.maxReleased+1), n)
	for k := c.deliverFrom; k < limit; k++ {
		if c.pl.server[k] && !c.delivered[k] && c.isReleased(k) {
			c.delivered[k] = true
			return c.outgoing(&c.p.c.Interactions[k]), true
		}
	}
	return nil, false
}

// outgoing returns a copy of a recorded server message, a response carrying
// the live id of the request it answers. c.mu is held.
func (c *playConn) outgoing(in *Interaction) jsonrpc.Message {
	switch m := in.msg.(type) {
	case *jsonrpc.Request:
		cp := *m
		return &cp
	case *jsonrpc.Response:
		cp := *m
		if id, ok := c.liveID[in.pair]; ok {
			cp.ID = id
		}
		return &cp
	}
	return in.msg
}

func (c *playConn) Write(ctx context.Context, m jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed {
		return transport.ErrClosed
	}
	tree, err := c.p.match.tree(data, c.red)
	if err != nil {
		return err
	}
	kind := kindOf(m)
	if j, ok := c.find(kind, tree); ok {
		c.serve(j, m)
		return nil
	}
	merr := c.mismatch(m, kind, tree)
	c.mismatches = append(c.mismatches, merr)
	if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
		c.extra = append(c.extra, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: CodeMismatch, Message: merr.Error()}})
		c.signal()
	}
	return nil
}

// find returns the first unserved recorded client message that tree
// matches, wherever it is. c.mu is held.
func (c *playConn) find(kind string, tree any) (int, bool) {
	ins := c.p.c.Interactions
	for i := c.next; i < len(ins); i++ {
		if c.pl.client[i] && !c.served[i] && kindOf(ins[i].msg) == kind && equalTree(c.p.want[i], tree) {
			return i, true
		}
	}
	return 0, false
}

// serve marks recorded client message j as matched by live message m and
// releases what that allows. c.mu is held.
func (c *playConn) serve(j int, m jsonrpc.Message) {
	c.served[j] = true
	if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
		c.liveID[j] = req.ID
	}
	c.maxServed = max(c.maxServed, j)
	if r := c.pl.respOf[j]; r >= 0 {
		c.held[r] = nil
	}
	c.advance()
	c.release()
	for r, t := range c.held {
		if t == nil {
			c.held[r] = time.AfterFunc(c.p.opts.wait(), func() { c.expire(r) })
		}
	}
	c.signal()
}

// ready reports whether held response r may be released. c.mu is held.
func (c *playConn) ready(r int) bool {
	call := c.p.c.Interactions[r].pair
	if !c.served[call] || call > c.firstHeld {
		return false
	}
	for _, j := range c.pl.needs[r] {
		if !c.served[j] {
			return false
		}
	}
	return true
}

// release releases every held response that is ready, until none is.
// c.mu is held.
func (c *playConn) release() {
	for changed := true; changed; {
		changed = false
		for r, t := range c.held {
			if c.ready(r) {
				if t != nil {
					t.Stop()
				}
				delete(c.held, r)
				c.released[r] = true
				c.maxReleased = max(c.maxReleased, r)
				changed = true
			}
		}
		c.advance()
	}
}

// expire fails held response r: its call gets a JSON-RPC error carrying a
// *MismatchError that names what it waited for, and what was ordered after
// it is no longer held back by it.
func (c *playConn) expire(r int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.held[r]
	if !ok || t == nil || c.isClosed {
		return
	}
	delete(c.held, r)
	c.released[r], c.delivered[r] = true, true
	c.maxReleased = max(c.maxReleased, r)
	ins := c.p.c.Interactions
	call := ins[r].pair
	merr := &MismatchError{Cassette: c.p.c.File, Position: ins[call].Line, Method: ins[call].Method(), Diff: "",
		Reason: fmt.Sprintf("held %v for recorded messages the live client did not send: %s", c.p.opts.wait(), c.blockers(r))}
	c.mismatches = append(c.mismatches, merr)
	c.extra = append(c.extra, &jsonrpc.Response{ID: c.liveID[call], Error: &jsonrpc.Error{Code: CodeMismatch, Message: merr.Error()}})
	c.advance()
	c.release()
	c.signal()
}

// blockers describes what held response r waits for. c.mu is held.
func (c *playConn) blockers(r int) string {
	ins := c.p.c.Interactions
	call := ins[r].pair
	var s string
	add := func(i int) {
		if s != "" {
			s += ", "
		}
		s += c.describe(i)
	}
	if call > c.firstHeld {
		for i := 0; i < call; i++ {
			if c.pl.client[i] && !c.served[i] && !c.p.c.isNotification(i) {
				if rr := c.pl.respOf[i]; rr >= 0 && rr < call {
					add(i)
				}
			}
		}
	}
	for _, j := range c.pl.needs[r] {
		if !c.served[j] {
			add(j)
		}
	}
	if s == "" {
		s = "responses recorded before it that are themselves held"
	}
	return s
}

// mismatch explains why tree matched nothing, against the nearest recorded
// client message. c.mu is held.
func (c *playConn) mismatch(m jsonrpc.Message, kind string, tree any) *MismatchError {
	ins := c.p.c.Interactions
	method := c.methodOf(m)
	e := &MismatchError{Cassette: c.p.c.File, Method: method}
	same := func(i int) bool { return kindOf(ins[i].msg) == kind && c.methodOfRecorded(i) == method }
	expected := -1
	if c.next < len(ins) {
		expected = c.next
	}
	nearest := -1
	for i := len(ins) - 1; i >= 0 && nearest < 0; i-- {
		if c.pl.client[i] && c.served[i] && same(i) && equalTree(c.p.want[i], tree) {
			nearest, e.Reason = i, "already served: a recorded message is served at most once"
		}
	}
	switch {
	case nearest >= 0:
	case expected >= 0 && same(expected):
		nearest, e.Reason = expected, "differs from the next recorded message"
	default:
		for i := c.next; i < len(ins) && nearest < 0; i++ {
			if c.pl.client[i] && !c.served[i] && same(i) {
				nearest, e.Reason = i, "differs from the nearest unserved recorded message with this method; the next recorded client message is "+c.describe(expected)
			}
		}
		for i := len(ins) - 1; i >= 0 && nearest < 0; i-- {
			if c.pl.client[i] && c.served[i] && same(i) {
				nearest, e.Reason = i, "no unserved recorded message has this method; the next recorded client message is "+c.describe(expected)
			}
		}
		if nearest < 0 && expected >= 0 {
			nearest, e.Reason = expected, "no recorded message has this method; the next recorded client message is "+c.describe(expected)
		}
		if nearest < 0 {
			e.Reason = "the cassette has no more client messages"
		}
	}
	if nearest >= 0 {
		e.Position = ins[nearest].Line
		e.Diff = diff(c.p.want[nearest], tree)
	} else {
		e.Diff = diff(nil, tree)
	}
	return e
}

// describe names a recorded client message for an error.
func (c *playConn) describe(i int) string {
	if i < 0 {
		return "none (end of cassette)"
	}
	in := &c.p.c.Interactions[i]
	return c.methodOfRecorded(i) + " " + kindOf(in.msg) + " at line " + strconv.Itoa(in.Line)
}

// methodOf returns a live message's method; for a response, the method of
// the recorded server request it answers.
func (c *playConn) methodOf(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return m.Method
	case *jsonrpc.Response:
		for i := range c.p.c.Interactions {
			in := &c.p.c.Interactions[i]
			if r, ok := in.msg.(*jsonrpc.Request); ok && in.From == FromServer && r.IsCall() && r.ID == m.ID {
				return r.Method
			}
		}
	}
	return ""
}

func (c *playConn) methodOfRecorded(i int) string { return c.p.c.methodAt(i) }

// methodAt returns the method of interaction i, or of the request it answers.
func (c *Cassette) methodAt(i int) string {
	in := &c.Interactions[i]
	if in.pair >= 0 {
		return c.Interactions[in.pair].Method()
	}
	return in.Method()
}

func (c *playConn) SessionID() string { return "" }

// Diagnose returns the recorded stderr, if the cassette holds any.
func (c *playConn) Diagnose() *transport.Diagnosis {
	for i := range c.p.c.Interactions {
		if in := &c.p.c.Interactions[i]; in.Kind == KindStderr {
			return &transport.Diagnosis{Stderr: []byte(in.Text)}
		}
	}
	return nil
}

// Close ends the session and returns its mismatches and, in strict mode, the
// recorded client messages never sent. It stops every hold.
func (c *playConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isClosed {
		c.isClosed = true
		close(c.closed)
		for _, t := range c.held {
			if t != nil {
				t.Stop()
			}
		}
		errs := append([]error(nil), c.mismatches...)
		if us := c.p.unused(c.served); c.p.opts.Strict && len(us) > 0 {
			errs = append(errs, &UnusedError{Cassette: c.p.c.File, Unused: us})
		}
		c.closeErr = errors.Join(errs...)
	}
	return c.closeErr
}

func (c *playConn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isClosed {
		return c.closeErr
	}
	return errors.Join(c.mismatches...)
}
