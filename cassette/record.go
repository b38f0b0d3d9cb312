package cassette

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/looprig/mcp/internal/atomicfile"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrUsed is returned by a Recorder's or Player's Transport when its one
// session has already been made: a cassette holds exactly one session.
var ErrUsed = errors.New("cassette: factory already made its session")

// ErrIncomplete is returned by a recording connection's Close, and nothing is
// written, when the session never completed the initialize handshake.
var ErrIncomplete = errors.New("session has no initialize exchange")

// A Recorder is a transport.Factory that records the one session it makes to
// a cassette file. Every message in both directions is kept in order,
// notifications and server-to-client requests included; when the session's
// connection closes, the messages are redacted and written to the file
// atomically (a temporary file renamed over it), so a failed write leaves any
// earlier cassette untouched. The connection's Close returns the write error.
type Recorder struct {
	inner transport.Factory
	path  string
	opts  *Options

	mu   sync.Mutex // guards used
	used bool
}

// NewRecorder returns a Recorder of inner writing to path. It returns an
// *OptionsError (matching ErrInvalidOptions) naming the problem when inner
// is nil, path is empty or a directory, or an option is unusable.
func NewRecorder(inner transport.Factory, path string, opts *Options) (*Recorder, error) {
	if inner == nil {
		return nil, &OptionsError{Func: "NewRecorder", Option: "inner", Err: ErrNoLive}
	}
	if err := checkFile("NewRecorder", path); err != nil {
		return nil, err
	}
	if err := checkOptions("NewRecorder", opts); err != nil {
		return nil, err
	}
	return &Recorder{inner: inner, path: path, opts: opts.orZero()}, nil
}

// Record is NewRecorder for arguments known to be valid: it panics with
// NewRecorder's error.
func Record(inner transport.Factory, path string, opts *Options) *Recorder {
	r, err := NewRecorder(inner, path, opts)
	if err != nil {
		panic(err)
	}
	return r
}

// checkFile checks a cassette's file path for constructor fn.
func checkFile(fn, path string) error {
	if path == "" {
		return &OptionsError{Func: fn, Option: "path", Err: ErrNoFile}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &OptionsError{Func: fn, Option: "path", Value: path, Err: fmt.Errorf("%w: a directory", ErrNoFile)}
	}
	return nil
}

// Kind returns the inner factory's kind.
func (r *Recorder) Kind() transport.Kind { return r.inner.Kind() }

// Transport returns the transport of the recorded session. It returns ErrUsed
// when called a second time.
func (r *Recorder) Transport() (mcp.Transport, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.used {
		return nil, ErrUsed
	}
	inner, err := r.inner.Transport()
	if err != nil {
		return nil, err
	}
	r.used = true
	return &recordTransport{r: r, inner: inner}, nil
}

type recordTransport struct {
	r     *Recorder
	inner mcp.Transport
}

func (t *recordTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newRecordConn(t.r, c), nil
}

type recordConn struct {
	r     *Recorder
	inner mcp.Connection

	mu      sync.Mutex // guards entries, failed and closed
	entries []recorded
	failed  map[int]bool // writes that returned an error: they may not have been sent
	closed  bool

	closeOnce sync.Once
	closeErr  error
}

func newRecordConn(r *Recorder, inner mcp.Connection) *recordConn {
	return &recordConn{r: r, inner: inner, failed: map[int]bool{}}
}

type recorded struct {
	from string
	msg  jsonrpc.Message
}

// shallow copies the message struct; params and results are immutable.
func shallow(m jsonrpc.Message) jsonrpc.Message {
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		c.Extra = nil
		return &c
	case *jsonrpc.Response:
		c := *m
		c.Extra = nil
		return &c
	}
	return m
}

func (c *recordConn) add(from string, m jsonrpc.Message) int {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return -1
	}
	c.entries = append(c.entries, recorded{from: from, msg: shallow(m)})
	i := len(c.entries) - 1
	c.mu.Unlock()
	return i
}

func (c *recordConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.inner.Read(ctx)
	if err == nil {
		c.add(FromServer, m)
	}
	return m, err
}

// Write records the message before writing it, so that a reply the peer
// sends at once cannot be recorded ahead of it.
func (c *recordConn) Write(ctx context.Context, m jsonrpc.Message) error {
	i := c.add(FromClient, m)
	err := c.inner.Write(ctx, m)
	if err != nil && i >= 0 {
		c.mu.Lock()
		c.failed[i] = true
		c.mu.Unlock()
	}
	return err
}

func (c *recordConn) SessionID() string { return c.inner.SessionID() }

// Diagnose forwards to the inner connection.
func (c *recordConn) Diagnose() *transport.Diagnosis {
	if d, ok := c.inner.(transport.Diagnoser); ok {
		return d.Diagnose()
	}
	return nil
}

// Close closes the inner connection and writes the cassette.
func (c *recordConn) Close() error {
	c.closeOnce.Do(func() {
		innerErr := c.inner.Close()
		c.mu.Lock()
		c.closed = true
		entries, failed := c.entries, c.failed
		c.mu.Unlock()
		// Messages are encoded here rather than as they pass: encoding
		// alongside the session slows it more than encoding once at the end.
		enc := newEncoder(c.r.opts)
		enc.out = make([]Interaction, 0, len(entries))
		for _, e := range entries {
			enc.add(e)
		}
		var stderr []byte
		if c.r.opts.Stderr {
			if d := c.Diagnose(); d != nil {
				stderr = d.Stderr
			}
		}
		c.closeErr = errors.Join(innerErr, c.r.save(enc, failed, stderr))
	})
	return c.closeErr
}

func (r *Recorder) save(enc *encoder, failed map[int]bool, stderr []byte) error {
	data, err := r.build(enc, failed, stderr)
	if err != nil {
		return fmt.Errorf("cassette %s: %w", r.path, err)
	}
	if err := writeAtomic(r.path, data); err != nil {
		return fmt.Errorf("cassette %s: %w", r.path, err)
	}
	return nil
}

// An encoder turns recorded messages, in order, into redacted interactions.
type encoder struct {
	red *redactor
	hs  headerScan
	out []Interaction // one per recorded message
	err error         // the first encoding error
}

func newEncoder(o *Options) *encoder { return &encoder{red: newRedactor(o)} }

func (e *encoder) add(r recorded) {
	if !e.red.active() {
		// Nothing to redact: build the canonical bytes from the message's
		// fields, whose params and result are already encoded.
		canon, ok, err := canonicalMessage(r.msg)
		if err != nil {
			e.fail(err)
			return
		}
		if ok {
			e.hs.scan(r.from, r.msg, func() any {
				tree, _ := decodeTree(canon)
				return tree
			})
			e.out = append(e.out, Interaction{Kind: KindMessage, From: r.from, Message: canon, msg: r.msg, pair: -1})
			return
		}
	}
	data, err := jsonrpc.EncodeMessage(r.msg)
	if err != nil {
		e.fail(err)
		return
	}
	if e.red.active() {
		tree, err := decodeTree(data)
		if err != nil {
			e.fail(err)
			return
		}
		e.hs.scan(r.from, r.msg, func() any { return tree })
		e.out = append(e.out, Interaction{Kind: KindMessage, From: r.from, Message: encodeTree(e.red.tree(tree)), msg: r.msg, pair: -1})
		return
	}
	// Nothing to redact: canonicalise the bytes, without a tree.
	canon, err := canonical(data)
	if err != nil {
		e.fail(err)
		return
	}
	e.hs.scan(r.from, r.msg, func() any {
		tree, _ := decodeTree(data)
		return tree
	})
	e.out = append(e.out, Interaction{Kind: KindMessage, From: r.from, Message: canon, msg: r.msg, pair: -1})
}

func (e *encoder) fail(err error) {
	e.err = cmp.Or(e.err, fmt.Errorf("encoding a message: %w", err))
	e.out = append(e.out, Interaction{})
}

// build assembles the cassette from the encoded messages, leaving out the
// writes that failed.
func (r *Recorder) build(enc *encoder, failed map[int]bool, stderr []byte) ([]byte, error) {
	if enc.err != nil {
		return nil, enc.err
	}
	c := &Cassette{File: r.path, Header: Header{Format: FormatName, Version: Version, Transport: r.inner.Kind().String()}}
	c.Header.Protocol, c.Header.Server = enc.hs.protocol, enc.hs.server
	if c.Header.Protocol == "" || c.Header.Server == "" {
		return nil, ErrIncomplete
	}
	for i, in := range enc.out {
		if !failed[i] {
			c.Interactions = append(c.Interactions, in)
		}
	}
	if len(stderr) > 0 {
		c.Interactions = append(c.Interactions, Interaction{Kind: KindStderr, Text: enc.red.text(string(stderr))})
	}
	// Check what Load will check of the session's structure (the lines
	// themselves are well formed by construction): every response answers a
	// pending request, and the header agrees with the initialize result.
	if err := c.link(); err != nil {
		return nil, fmt.Errorf("recorded session would not load: %w", err)
	}
	return c.Marshal(), nil
}

// writeAtomic replaces the cassette at path whole (internal/atomicfile), so
// that a failed write leaves any earlier cassette untouched.
func writeAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data, 0o644) }

// headerScan finds the protocol revision and server name of a session: from
// the initialize exchange, or, in stateless revisions (2026-07-28 and
// later, which have no initialize), from the "_meta" every message carries.
type headerScan struct {
	initID           jsonrpc.ID
	protocol, server string
	fromInit         bool
}

const (
	metaProtocol   = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
)

// scan looks at one message; tree returns its decoded form, called only
// when the message may hold what scan looks for.
func (h *headerScan) scan(from string, m jsonrpc.Message, tree func() any) {
	obj := func() map[string]any { o, _ := tree().(map[string]any); return o }
	switch m := m.(type) {
	case *jsonrpc.Request:
		if from != FromClient {
			return
		}
		if m.Method == "initialize" {
			h.initID = m.ID
		}
		if h.protocol == "" {
			h.protocol, _ = lookup(obj(), "params", "_meta", metaProtocol).(string)
		}
	case *jsonrpc.Response:
		if from != FromServer || m.Error != nil || h.fromInit {
			return
		}
		if h.initID.IsValid() && m.ID == h.initID {
			o := obj()
			p, _ := lookup(o, "result", "protocolVersion").(string)
			s, _ := lookup(o, "result", "serverInfo", "name").(string)
			h.protocol, h.server, h.fromInit = p, s, true
			return
		}
		if h.server == "" {
			h.server, _ = lookup(obj(), "result", "_meta", metaServerInfo, "name").(string)
		}
	}
}

// lookup returns the value at the keys under v, or nil.
func lookup(v any, keys ...string) any {
	for _, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}
