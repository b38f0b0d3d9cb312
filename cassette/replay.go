package cassette

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is returned by Write on a replaying connection that is closed.
var ErrClosed = errors.New("cassette: connection closed")

// A Player is a transport.Factory that serves one session from a cassette,
// with no server. It answers the client's messages from the recording:
//
//   - each client message must match the next recorded client message by
//     method and canonical params (request ids are rewritten, so a replayed
//     response answers the live request's id; "_meta", which carries
//     progress tokens, and Options.IgnorePaths are ignored; live messages
//     are redacted with the recording's rules before comparison);
//   - recorded client notifications the live client does not send are
//     skipped; recorded requests and responses are not;
//   - each recorded message is served at most once, in order: a recorded
//     tools/call is never answered twice;
//   - server messages (responses, notifications, server-to-client requests
//     such as sampling, elicitation and roots) are delivered at their
//     recorded position, once every client message before them has matched;
//   - a request that matches nothing is answered with a JSON-RPC error
//     (CodeMismatch) whose text is a *MismatchError, and the error is kept
//     for Close and Err.
type Player struct {
	c     *Cassette
	opts  *Options
	match *matcher
	want  []any // comparable form of each client message; nil for others

	http *httpPlay // for a streamablehttp cassette; nil for the message level

	mu   sync.Mutex // guards used and conn
	used bool
	conn *playConn
}

// Player returns a Player of c. It panics on invalid options (a malformed
// path).
func (c *Cassette) Player(opts *Options) *Player {
	o := opts.orZero()
	parsePaths("redact", o.RedactPaths)
	p := &Player{c: c, opts: o, match: newMatcher(o), want: make([]any, len(c.Interactions))}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if in.Kind == KindMessage && in.From == FromClient || in.Kind == KindRequest && in.Message != nil {
			t, err := p.match.tree(in.Message, nil)
			if err != nil {
				panic("cassette: a parsed message does not decode: " + err.Error())
			}
			p.want[i] = t
		}
	}
	if c.Kind() == transport.KindStreamableHTTP {
		p.http = newHTTPPlay(p)
	}
	return p
}

// Replay loads the cassette at path and returns its Player.
func Replay(path string, opts *Options) (*Player, error) {
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	return c.Player(opts), nil
}

// Kind returns the transport kind the cassette was recorded on.
func (p *Player) Kind() transport.Kind { return p.c.Kind() }

// Transport returns the transport of the replayed session. It returns
// ErrUsed when called a second time.
func (p *Player) Transport() (mcp.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used {
		return nil, ErrUsed
	}
	p.used = true
	if p.http != nil {
		return p.http.transport()
	}
	p.conn = &playConn{
		p:      p,
		red:    newRedactor(p.opts),
		done:   make([]bool, len(p.c.Interactions)),
		liveID: map[int]jsonrpc.ID{},
		wake:   make(chan struct{}),
		closed: make(chan struct{}),
	}
	p.conn.advance()
	return playTransport{p.conn}, nil
}

// RoundTripper returns the round tripper that serves a streamablehttp
// cassette, for a client that builds its own streamablehttp factory
// (pointed at Endpoint, with Base set to it); nil for other cassettes. It
// shares the Player's state: use it or Transport, not both.
func (p *Player) RoundTripper() http.RoundTripper {
	if p.http == nil {
		return nil
	}
	return p.http
}

// Endpoint returns the URL a replayed HTTP session is addressed to:
// ReplayOrigin and the recorded path. It is "" for other cassettes.
func (p *Player) Endpoint() string {
	if p.http == nil {
		return ""
	}
	return p.http.endpoint()
}

// Err returns the errors of the session so far: every *MismatchError, and,
// once the connection is closed in strict mode, an *UnusedError.
func (p *Player) Err() error {
	if p.http != nil {
		return p.http.err()
	}
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.err()
}

// Unused returns the recorded client messages not matched so far.
func (p *Player) Unused() []Unused {
	if p.http != nil {
		return p.http.unused()
	}
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c == nil {
		return p.unused(make([]bool, len(p.c.Interactions)))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.unused(c.done)
}

func (p *Player) unused(done []bool) []Unused {
	var us []Unused
	for i := range p.c.Interactions {
		in := &p.c.Interactions[i]
		if in.Kind == KindMessage && in.From == FromClient && !done[i] {
			us = append(us, Unused{Line: in.Line, Method: in.Method()})
		}
	}
	return us
}

type playTransport struct{ c *playConn }

func (t playTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

type playConn struct {
	p *Player

	mu         sync.Mutex // guards the fields below
	red        *redactor
	next       int                // first client message not matched or skipped; len when none
	deliver    int                // next interaction to consider delivering; never passes next
	done       []bool             // client messages matched
	liveID     map[int]jsonrpc.ID // live id of each matched recorded request
	extra      []jsonrpc.Message  // error responses to unmatched requests, delivered first
	mismatches []error
	wake       chan struct{} // closed and replaced whenever Read may have something new
	isClosed   bool
	closeErr   error

	closed chan struct{} // closed by Close
}

func (c *playConn) isClient(i int) bool {
	in := &c.p.c.Interactions[i]
	return in.Kind == KindMessage && in.From == FromClient
}

// advance moves next to the first client message not yet matched.
// c.mu is held.
func (c *playConn) advance() {
	for c.next < len(c.done) && (!c.isClient(c.next) || c.done[c.next]) {
		c.next++
	}
}

func (c *playConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
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
		for c.deliver < c.next {
			in := &c.p.c.Interactions[c.deliver]
			c.deliver++
			if in.Kind == KindMessage && in.From == FromServer {
				m := c.outgoing(in)
				c.mu.Unlock()
				return m, nil
			}
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
		return ErrClosed
	}
	tree, err := c.p.match.tree(data, c.red)
	if err != nil {
		return err
	}
	kind := kindOf(m)
	if j, ok := c.find(kind, tree); ok {
		c.done[j] = true
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			c.liveID[j] = req.ID
		}
		c.next = j + 1
		c.advance()
		c.signal()
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

// find returns the recorded client message that tree matches: the next one,
// or one after recorded notifications the live client did not send.
// c.mu is held.
func (c *playConn) find(kind string, tree any) (int, bool) {
	ins := c.p.c.Interactions
	for i := c.next; i < len(ins); i++ {
		if !c.isClient(i) || c.done[i] {
			continue
		}
		k := kindOf(ins[i].msg)
		if k == kind && equalTree(c.p.want[i], tree) {
			return i, true
		}
		if k != "notification" {
			break
		}
	}
	return 0, false
}

// mismatch explains why tree matched nothing, against the nearest recorded
// client message. c.mu is held.
func (c *playConn) mismatch(m jsonrpc.Message, kind string, tree any) *MismatchError {
	ins := c.p.c.Interactions
	method := c.methodOf(m)
	e := &MismatchError{Cassette: c.p.c.File, Method: method}
	same := func(i int) bool { return kindOf(ins[i].msg) == kind && c.methodOfRecorded(i) == method }
	expected := -1
	for i := c.next; i < len(ins); i++ {
		if c.isClient(i) && !c.done[i] {
			expected = i
			break
		}
	}
	nearest := -1
	switch {
	case expected >= 0 && same(expected):
		nearest, e.Reason = expected, "differs from the next recorded message"
	default:
		for i := c.next; i < len(ins) && nearest < 0; i++ {
			if c.isClient(i) && !c.done[i] && same(i) {
				nearest, e.Reason = i, "out of order: the next recorded client message is "+c.describe(expected)
			}
		}
		for i := c.next - 1; i >= 0 && nearest < 0; i-- {
			if c.isClient(i) && c.done[i] && same(i) {
				nearest = i
				if equalTree(c.p.want[i], tree) {
					e.Reason = "already served: a recorded message is served at most once"
				} else {
					e.Reason = "no unserved recorded message has this method; the next recorded client message is " + c.describe(expected)
				}
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
// recorded client messages never sent.
func (c *playConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isClosed {
		c.isClosed = true
		close(c.closed)
		errs := append([]error(nil), c.mismatches...)
		if us := c.p.unused(c.done); c.p.opts.Strict && len(us) > 0 {
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
