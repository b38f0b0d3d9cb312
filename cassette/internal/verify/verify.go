package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/record"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/cassette/internal/replay"
	"github.com/looprig/mcp/internal/transcript"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what Verify is run with. Package cassette builds it from its
// Options.
type Config struct {
	Record      *record.Config // how the live session is recorded
	IgnorePaths []string       // the paths matching ignores, besides the cassette's volatile ones
	Errors      *errs.Errors   // makes the errors users branch on
}

// Run drives live with the client messages recorded in c (infos: its
// lines, analysed) and returns the drifts, with the live session as it
// drove it when there are some (package cassette's Verify, after its
// checks of the options).
func Run(ctx context.Context, c *format.Cassette, infos []format.LineInfo, live transport.Factory, cfg *Config) (ds []transcript.Drift, lc *format.Cassette, err error) {
	rec, err := newLiveRecorder(live, cfg.Errors)
	if err != nil {
		return nil, nil, err
	}
	tr, err := rec.factory.Transport()
	if err != nil {
		return nil, nil, errs.Visible(fmt.Errorf("verify %s: %w", c.File, err))
	}
	conn, err := tr.Connect(ctx)
	if err != nil {
		return nil, nil, errs.Visible(fmt.Errorf("verify %s: %w", c.File, err))
	}
	conn = rec.conn(conn)
	v := &verifier{c: c, infos: infos, msgs: make(chan jsonrpc.Message), serverIDs: map[int]jsonrpc.ID{}, outstanding: map[jsonrpc.ID]bool{},
		refused: map[jsonrpc.ID]bool{}, cancelled: map[string]bool{}}
	if rec.hrec != nil {
		v.origin = rec.origin.String()
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { v.read(rctx, conn) })
	defer func() {
		cancel()
		cerr := conn.Close()
		wg.Wait()
		if err == nil && cerr != nil {
			err = errs.Visible(fmt.Errorf("verify %s: closing: %w", c.File, cerr))
		}
		if err == nil {
			ds, lc, err = v.drift(rec, cfg)
		}
	}()
	passed := replay.LineSet(replay.RecoveredRefusals(c, infos))
	for i := range c.Interactions {
		if infos[i].Canon == nil || passed[i] {
			continue // no message, or a refused copy the live client recovers from itself
		}
		if err := v.step(ctx, conn, i); err != nil {
			return nil, nil, errs.Visible(fmt.Errorf("verify %s:%d: %w", c.File, c.Line(i), err))
		}
	}
	if serverEnded(c) {
		// The recorded server ended the session: wait for the live one to
		// end it too (or not, until ctx ends), so that the endings compare.
		v.awaitEnd(ctx)
	}
	return nil, nil, nil
}

// httpFactory is package cassette's HTTPFactory: a Streamable HTTP
// factory recorded through its base round tripper.
type httpFactory interface {
	transport.Factory
	Origin() auth.Origin
	WithBase(wrap func(base http.RoundTripper) http.RoundTripper) transport.Factory
}

// A liveRecorder records the session Verify drives, as Open would: at the
// HTTP level for Streamable HTTP, else at the message level.
type liveRecorder struct {
	factory transport.Factory
	kind    transport.Kind
	hrec    *record.HTTPRecorder
	origin  auth.Origin
	rconn   *record.Conn
}

func newLiveRecorder(live transport.Factory, mk *errs.Errors) (*liveRecorder, error) {
	r := &liveRecorder{factory: live, kind: live.Kind()}
	if r.kind != transport.KindStreamableHTTP {
		return r, nil
	}
	hf, ok := transport.As[httpFactory](live)
	if !ok {
		return nil, mk.Options(&errs.Options{Func: "Verify", Option: "live", Value: fmt.Sprintf("%T", live),
			Err: errors.New("a Streamable HTTP factory is recorded through its base round tripper: want an HTTPFactory such as streamablehttp.New's")})
	}
	cl, _ := transport.As[transport.Classifier](live)
	r.origin = hf.Origin()
	r.hrec = record.NewHTTP(r.origin, cl, func() {})
	r.factory = hf.WithBase(r.hrec.Wrap)
	return r, nil
}

// conn returns the connection Verify drives: c, recorded at the message
// level unless the HTTP recorder is under it.
func (r *liveRecorder) conn(c mcp.Connection) mcp.Connection {
	if r.hrec != nil {
		return c
	}
	cl, _ := transport.As[transport.Classifier](r.factory)
	r.rconn = record.NewConn(c, cl, nil)
	return r.rconn
}

// cassette returns the recorded live session, redacted as cfg says.
func (r *liveRecorder) cassette(cfg *Config) (*format.Cassette, error) {
	if r.hrec != nil {
		entries, err := r.hrec.Close()
		if err != nil {
			return nil, err
		}
		return record.BuildHTTP(entries, r.origin, cfg.Record)
	}
	entries, err := r.rconn.Taken()
	if err != nil {
		return nil, err
	}
	return record.BuildMessages(r.kind, entries, cfg.Record, nil)
}

// serverEnded reports whether the server ended c's session.
func serverEnded(c *format.Cassette) bool {
	for i := len(c.Interactions) - 1; i >= 0; i-- {
		if in := &c.Interactions[i]; in.Kind == format.KindClose && in.HTTP == nil {
			return in.Ending.End != format.EndClient
		}
	}
	return false
}

// drift compares the live session with the recorded one: the drifts and,
// when there are some, the live session.
func (v *verifier) drift(rec *liveRecorder, cfg *Config) ([]transcript.Drift, *format.Cassette, error) {
	lc, err := rec.cassette(cfg)
	if err != nil {
		return nil, nil, errs.Visible(fmt.Errorf("verify %s: recording the live session: %w", v.c.File, err))
	}
	lc.File = "live"
	foldPolls(lc, v.superseded)
	mt := replay.NewMatcher(cfg.IgnorePaths, v.c)
	a, err := readTranscript(v.c, mt)
	if err != nil {
		return nil, nil, err
	}
	b, err := readTranscript(lc, mt)
	if err != nil {
		return nil, nil, errs.Visible(fmt.Errorf("verify %s: the live session: %w", v.c.File, err))
	}
	ds := compareTranscripts(v.c, lc, a, b, "recorded", "live")
	if len(ds) == 0 {
		return nil, nil, nil
	}
	return ds, lc, nil
}

type verifier struct {
	c           *format.Cassette
	infos       []format.LineInfo
	msgs        chan jsonrpc.Message
	readErr     error // set when msgs is closed
	buf         []jsonrpc.Message
	serverIDs   map[int]jsonrpc.ID  // recorded server request → its live id
	outstanding map[jsonrpc.ID]bool // client request ids not yet answered
	refused     map[jsonrpc.ID]bool // client requests the live transport refused to carry (an HTTP 400): no answer is awaited
	cancelled   map[string]bool     // the id keys of the client requests verify cancelled
	states      redact.Names        // the recorded request states (renamed) → the live server's
	tasks       redact.Names        // the recorded task ids (renamed) → the live server's
	superseded  map[string]bool     // the id keys of the live polls Verify polled again after (repollUntilMoved)
	origin      string              // the live server's origin, over HTTP: sent where the recording renamed its own
}

// toLive returns raw, a recorded client message's params or result, with
// the live server's origin where the recording renamed its own.
func (v *verifier) toLive(raw json.RawMessage) json.RawMessage {
	if v.origin == "" || raw == nil {
		return raw
	}
	if s := redact.RestoreOrigin(string(raw), v.origin); s != string(raw) {
		return json.RawMessage(s)
	}
	return raw
}

// awaitEnd waits until the live connection ends, or ctx does.
func (v *verifier) awaitEnd(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-v.msgs:
			if !ok {
				return
			}
		}
	}
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

// A msgWriter is the side of a live connection verify writes to.
type msgWriter interface {
	Write(context.Context, jsonrpc.Message) error
}

// step plays recorded line i against the live server: it sends a client
// message, or awaits the server's.
func (v *verifier) step(ctx context.Context, conn msgWriter, i int) error {
	info := &v.infos[i]
	from := format.Side(&v.c.Interactions[i])
	switch m := info.Msg.ToMessage().(type) {
	case *jsonrpc.Request:
		if from == format.FromClient {
			return v.sendRequest(ctx, conn, m)
		}
		if !m.IsCall() {
			return nil // server notifications are not awaited
		}
		got, err := v.await(ctx, "the server's "+m.Method+" request", true, func(g jsonrpc.Message) bool {
			r, ok := g.(*jsonrpc.Request)
			return ok && r.IsCall() && r.Method == m.Method
		})
		if err != nil {
			return err
		}
		if got == nil {
			return nil // the live server did not ask: Compare reports it
		}
		v.serverIDs[i] = got.(*jsonrpc.Request).ID
		return nil
	case *jsonrpc.Response:
		if from == format.FromClient {
			id, ok := v.serverIDs[info.Pair]
			if !ok {
				return nil // its request drifted already
			}
			cp := *m
			cp.ID, cp.Result = id, v.toLive(m.Result)
			return conn.Write(ctx, &cp)
		}
		return v.awaitAnswer(ctx, conn, info, m)
	}
	return nil
}

// sendRequest sends recorded client request m to the live server.
func (v *verifier) sendRequest(ctx context.Context, conn msgWriter, m *jsonrpc.Request) error {
	if m.IsCall() {
		v.outstanding[m.ID] = true
	}
	if m.Method == "notifications/cancelled" {
		// The call is given up: its answer, if the live server still
		// gives one, is awaited no more.
		key := format.CancelledID(m.Params)
		v.cancelled[key] = true
		for id := range v.outstanding {
			if format.LiveIDKey(id) == key {
				delete(v.outstanding, id)
			}
		}
	}
	cp := *m
	cp.Params = v.toLive(v.tasks.Rename(v.states.Rename(cp.Params))) // a continuation carries the live server's state, a poll its task
	err := conn.Write(ctx, &cp)
	if err != nil && ctx.Err() == nil && m.IsCall() && !unreachable(err) {
		// The live server refused the request outside JSON-RPC (an HTTP
		// status: a Streamable HTTP server answers a server/discover it
		// does not know with 400, where a stdio one answers a JSON-RPC
		// error). It goes unanswered in the live session, which Compare
		// reports if it matters.
		delete(v.outstanding, m.ID)
		v.refused[m.ID] = true
		return nil
	}
	return err
}

// unreachable reports whether err, a write's, is a network failure (the
// server not there, the connection broken) rather than the server's
// refusal: verify fails at once at the request that met it.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// awaitAnswer awaits the live server's answer to the request recorded
// answer m (of line info) answers.
func (v *verifier) awaitAnswer(ctx context.Context, conn msgWriter, info *format.LineInfo, m *jsonrpc.Response) error {
	if v.refused[m.ID] {
		return nil // the live transport refused its request
	}
	method := ""
	if p := info.Pair; p >= 0 {
		method = v.infos[p].Msg.Method
	}
	if err := v.endListen(ctx, conn, method, m.ID); err != nil {
		return err
	}
	what := fmt.Sprintf("the answer to %s (id %v)", method, m.ID.Raw())
	if method == "" {
		what = fmt.Sprintf("the answer to request %v", m.ID.Raw())
	}
	got, err := v.await(ctx, what, false, func(g jsonrpc.Message) bool {
		r, ok := g.(*jsonrpc.Response)
		return ok && r.ID == m.ID
	})
	if err != nil {
		return err
	}
	if method == "tasks/get" && info.Pair >= 0 {
		if got, err = v.repollUntilMoved(ctx, conn, info.Pair, info.Canon, got); err != nil {
			return err
		}
	}
	v.learnState(info.Canon, got)
	v.learnTask(info.Canon, got)
	delete(v.outstanding, m.ID)
	return nil
}

// endListen cancels the subscriptions/listen request id, before verify
// awaits its recorded answer, unless the recording's cancellation of it
// was sent already: a server answers a listen only once the client ends
// it, and a recording made as the client closed the session holds the
// answer without the cancellation (it is the session's close; see
// "Re-recording" in FORMAT.md).
func (v *verifier) endListen(ctx context.Context, conn msgWriter, method string, id jsonrpc.ID) error {
	if method != "subscriptions/listen" || v.cancelled[format.LiveIDKey(id)] {
		return nil
	}
	v.cancelled[format.LiveIDKey(id)] = true
	params := map[string]any{"requestId": id.Raw()}
	if v.c.Header.Protocol == protocol.Revision20260728 {
		// Every message of 2026-07-28 names its revision in _meta; a
		// server refuses one that does not.
		params["_meta"] = map[string]any{format.MetaProtocol: v.c.Header.Protocol}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return conn.Write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: raw})
}

// await returns the first live message (buffered or new) that want accepts.
// Waiting for a server request (forRequest), it gives up and returns nil when
// a response to an outstanding client request comes first: the server
// answered without asking. what names what it waits for, in its errors.
func (v *verifier) await(ctx context.Context, what string, forRequest bool, want func(jsonrpc.Message) bool) (jsonrpc.Message, error) {
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
			return nil, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case m, ok := <-v.msgs:
			if !ok {
				return nil, fmt.Errorf("waiting for %s: live server ended: %w", what, errors.Join(v.readErr, errEnded))
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

// learnState notes the request state the live server issued in got, the
// live answer to the recorded answer rec, in place of the (renamed) state
// rec carries: the recorded continuation that hands it back is sent with
// the live one.
func (v *verifier) learnState(rec json.RawMessage, got jsonrpc.Message) {
	learn(rec, got, redact.IssuedState, &v.states)
}

// learnTask notes the task id the live server issued in got, the live
// answer to the recorded task handle rec, in place of the (renamed) id rec
// carries: the recorded requests that name the task are sent with the
// live id.
func (v *verifier) learnTask(rec json.RawMessage, got jsonrpc.Message) {
	learn(rec, got, redact.IssuedTask, &v.tasks)
}

// learn names what issued finds in the live answer got by what it finds
// in the recorded answer rec.
func learn(rec json.RawMessage, got jsonrpc.Message, issued func(json.RawMessage) []byte, names *redact.Names) {
	recorded := issued(rec)
	if recorded == nil {
		return
	}
	if live := liveAnswer(got); live != nil {
		if x := issued(live); x != nil {
			names.Learn(recorded, x)
		}
	}
}

// liveAnswer returns got, a live answer, as a message holding its result
// only, or nil when got is not a response or is an error.
func liveAnswer(got jsonrpc.Message) json.RawMessage {
	r, ok := got.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		return nil
	}
	data, err := json.Marshal(struct {
		Result json.RawMessage `json:"result"`
	}{r.Result})
	if err != nil {
		return nil
	}
	return data
}
