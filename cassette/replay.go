package cassette

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Player is a transport.Factory that serves one session from a cassette,
// with no server. It answers the client's messages from the recording:
//
//   - each client message matches the first unserved recorded client
//     message with the same kind, method and canonical params, wherever it
//     is, so that requests a client makes concurrently may come in another
//     order than recorded (request ids are rewritten, so a replayed
//     response answers the live request's id; "_meta", which carries
//     progress tokens, and Options.IgnorePaths are ignored; live messages
//     are redacted with the recording's rules before comparison);
//   - each recorded message is served at most once: a recorded tools/call
//     is never answered twice;
//   - a response is released once its request has been served, every
//     server response recorded before that request has been released, and
//     every client response recorded between the request and it (answers
//     to sampling, elicitation, roots) has been served; an answer held
//     longer than Options.Wait fails with a *MismatchError;
//   - other server messages (notifications, server-to-client requests) are
//     released once every client message recorded before them has been
//     served (recorded client notifications the live client does not send
//     are passed over once a later message is served);
//   - released messages are delivered in recorded order;
//   - a message that matches nothing is a *MismatchError at once: a request
//     is answered with a JSON-RPC error (CodeMismatch) carrying it, and the
//     error is kept for Close and Err.
//
// See the package documentation, "Concurrent requests".
type Player struct {
	c     *Cassette
	opts  *Options
	match *matcher
	want  []any // comparable form of each client message; nil for others

	http *httpPlay // for a streamablehttp cassette; nil for the message level
	plan *msgPlan  // for the message level

	mu   sync.Mutex // guards used and conn
	used bool
	conn *playConn
}

// NewPlayer returns a Player of c. It returns an *OptionsError (matching
// ErrInvalidOptions) naming the problem when an option is unusable or a
// BeforeResponseReplayHook fails.
func NewPlayer(c *Cassette, opts *Options) (*Player, error) {
	const fn = "NewPlayer"
	if err := checkOptions(fn, opts); err != nil {
		return nil, err
	}
	o := opts.orZero()
	p := &Player{c: c, opts: o, match: newMatcher(o), want: make([]any, len(c.Interactions))}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if in.Kind == KindMessage && in.From == FromClient || in.Kind == KindRequest && in.Message != nil {
			t, err := p.match.tree(in.Message, nil)
			if err != nil {
				return nil, &FormatError{File: c.File, Line: in.Line, Err: fmt.Errorf("message: %w", err)}
			}
			p.want[i] = t
		}
	}
	if c.Kind() == transport.KindStreamableHTTP {
		h, err := newHTTPPlay(p)
		if err != nil {
			return nil, &OptionsError{Func: fn, Option: "Hooks", Err: err}
		}
		p.http = h
	} else {
		p.plan = newMsgPlan(c)
	}
	return p, nil
}

// Player is NewPlayer for options known to be valid: it panics with
// NewPlayer's error.
func (c *Cassette) Player(opts *Options) *Player {
	p, err := NewPlayer(c, opts)
	if err != nil {
		panic(err)
	}
	return p
}

// Replay loads the cassette at path and returns its Player. It returns
// Load's and NewPlayer's errors.
func Replay(path string, opts *Options) (*Player, error) {
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	return NewPlayer(c, opts)
}

// Kind returns the transport kind the cassette was recorded on.
func (p *Player) Kind() transport.Kind { return p.c.Kind() }

// PinnedProtocolVersion implements transport.ProtocolPinner: the replayed
// session speaks the revision it was recorded at (the header's Protocol),
// so a client with the default profile offers that revision, and one whose
// profile pins another is refused before anything is replayed.
func (p *Player) PinnedProtocolVersion() string { return p.c.Header.Protocol }

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
	p.conn = newPlayConn(p)
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
	return p.unused(c.served)
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
