package cassette

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A DriftError reports where a live server's answers differ from a
// cassette's.
type DriftError struct {
	Cassette string
	Drifts   []Drift
}

// A Drift is one recorded server message the live server answered
// differently.
type Drift struct {
	Line   int    // line of the recorded server message
	Method string // the method it answers or calls
	Diff   string // cmp.Diff (-recorded +live); "" when the live server sent nothing
	Reason string
}

func (e *DriftError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s: live server drifted at %d message(s)", e.Cassette, len(e.Drifts))
	for _, d := range e.Drifts {
		fmt.Fprintf(&b, "\nline %d: %s: %s", d.Line, d.Method, d.Reason)
		if d.Diff != "" {
			fmt.Fprintf(&b, " (-recorded +live):\n%s", d.Diff)
		}
	}
	return b.String()
}

// Verify drives a live server with the client messages recorded in c, in
// order, and compares the server's responses and server-to-client requests
// with the recorded ones, ignoring what replay matching ignores (ids,
// "_meta", opts.IgnorePaths; live messages are redacted first). Recorded
// client responses answer the live server's requests. Server notifications
// are not compared: their number and timing are rarely deterministic.
// Requests are sent as recorded, redacted values as their placeholders.
//
// A Streamable HTTP cassette is verified by its JSON-RPC messages (request
// bodies, response bodies and events), in the order of its lines; live is
// then a streamablehttp factory.
//
// It returns nil when nothing drifted, a *DriftError listing every drift,
// or the error that stopped the session (ctx's included).
func Verify(ctx context.Context, c *Cassette, live transport.Factory, opts *Options) (err error) {
	if err := checkOptions("Verify", opts, c.Kind()); err != nil {
		return err
	}
	o := opts.orZero()
	infos, err := analyse(c)
	if err != nil {
		return err
	}
	tr, err := live.Transport()
	if err != nil {
		return fmt.Errorf("verify %s: %w", c.File, err)
	}
	conn, err := tr.Connect(ctx)
	if err != nil {
		return fmt.Errorf("verify %s: %w", c.File, err)
	}
	v := &verifier{c: c, infos: infos, mt: newMatcher(o), red: newRedactor(o), msgs: make(chan jsonrpc.Message), serverIDs: map[int]jsonrpc.ID{}, outstanding: map[jsonrpc.ID]bool{}}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { v.read(rctx, conn) })
	defer func() {
		cancel()
		cerr := conn.Close()
		wg.Wait()
		if err == nil && len(v.drifts) > 0 {
			err = &DriftError{Cassette: c.File, Drifts: v.drifts}
		}
		if err == nil && cerr != nil {
			err = fmt.Errorf("verify %s: closing: %w", c.File, cerr)
		}
	}()
	for i := range c.Interactions {
		if infos[i].canon == nil {
			continue
		}
		if err := v.step(ctx, conn, i); err != nil {
			return fmt.Errorf("verify %s:%d: %w", c.File, c.Line(i), err)
		}
	}
	return nil
}

type verifier struct {
	c           *Cassette
	infos       []lineInfo
	mt          *matcher
	red         *redactor
	msgs        chan jsonrpc.Message
	readErr     error // set when msgs is closed
	buf         []jsonrpc.Message
	serverIDs   map[int]jsonrpc.ID  // recorded server request → its live id
	outstanding map[jsonrpc.ID]bool // client request ids not yet answered
	drifts      []Drift
}

func (v *verifier) read(ctx context.Context, conn interface {
	Read(context.Context) (jsonrpc.Message, error)
}) {
	var err error
	defer func() {
		v.readErr = err // published by closing msgs
		close(v.msgs)
	}()
	for {
		var m jsonrpc.Message
		if m, err = conn.Read(ctx); err != nil {
			return
		}
		select {
		case v.msgs <- m:
		case <-ctx.Done():
			err = ctx.Err()
			return
		}
	}
}

func (v *verifier) step(ctx context.Context, conn interface {
	Write(context.Context, jsonrpc.Message) error
}, i int) error {
	info := &v.infos[i]
	from := side(&v.c.Interactions[i])
	method := info.msg.method
	if info.msg.kind == kindResponse && info.pair >= 0 {
		method = v.infos[info.pair].msg.method
	}
	line := v.c.Line(i)
	switch m := info.msg.toMessage().(type) {
	case *jsonrpc.Request:
		if from == FromClient {
			if m.IsCall() {
				v.outstanding[m.ID] = true
			}
			cp := *m
			return conn.Write(ctx, &cp)
		}
		if !m.IsCall() {
			return nil // server notifications are not compared
		}
		got, err := v.await(ctx, true, func(g jsonrpc.Message) bool {
			r, ok := g.(*jsonrpc.Request)
			return ok && r.IsCall() && r.Method == m.Method
		})
		if err != nil {
			return err
		}
		if got == nil {
			v.drifts = append(v.drifts, Drift{Line: line, Method: method, Reason: "the live server did not send this request"})
			return nil
		}
		v.serverIDs[i] = got.(*jsonrpc.Request).ID
		return v.compare(i, got, method)
	case *jsonrpc.Response:
		if from == FromClient {
			id, ok := v.serverIDs[info.pair]
			if !ok {
				return nil // its request drifted already
			}
			cp := *m
			cp.ID = id
			return conn.Write(ctx, &cp)
		}
		got, err := v.await(ctx, false, func(g jsonrpc.Message) bool {
			r, ok := g.(*jsonrpc.Response)
			return ok && r.ID == m.ID
		})
		if err != nil {
			return err
		}
		delete(v.outstanding, m.ID)
		return v.compare(i, got, method)
	}
	return nil
}

// await returns the first live message (buffered or new) that want accepts.
// Waiting for a server request (forRequest), it gives up and returns nil when
// a response to an outstanding client request comes first: the server
// answered without asking.
func (v *verifier) await(ctx context.Context, forRequest bool, want func(jsonrpc.Message) bool) (jsonrpc.Message, error) {
	giveUp := func(m jsonrpc.Message) bool {
		r, ok := m.(*jsonrpc.Response)
		return forRequest && ok && v.outstanding[r.ID]
	}
	for i, m := range v.buf {
		if want(m) {
			v.buf = append(v.buf[:i:i], v.buf[i+1:]...)
			return m, nil
		}
		if giveUp(m) {
			return nil, nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case m, ok := <-v.msgs:
			if !ok {
				return nil, fmt.Errorf("live server ended: %w", errors.Join(v.readErr, errEnded))
			}
			if want(m) {
				return m, nil
			}
			v.buf = append(v.buf, m)
			if giveUp(m) {
				return nil, nil
			}
		}
	}
}

var errEnded = errors.New("connection closed")

func (v *verifier) compare(i int, got jsonrpc.Message, method string) error {
	canon, err := canonicalMessage(got)
	if err != nil {
		return err
	}
	if canon, err = v.red.message(canon); err != nil {
		return err
	}
	kind := liveKind(got)
	gotKey, wantKey := v.mt.key(kind, canon), v.mt.key(v.infos[i].msg.kind, v.infos[i].canon)
	if string(gotKey) != string(wantKey) {
		v.drifts = append(v.drifts, Drift{Line: v.c.Line(i), Method: method, Diff: diff(wantKey[1:], gotKey[1:]), Reason: "differs"})
	}
	return nil
}
