package cassette

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/cassette/internal/record"
	"github.com/looprig/mcp/cassette/internal/replay"
	"github.com/looprig/mcp/internal/atomicfile"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An HTTPFactory is a transport.Factory whose requests go through an
// http.RoundTripper the cassette can wrap: streamablehttp.Factory is one.
// Open records and replays its sessions at the HTTP level, below the
// factory's own policy and credentials, so a recorded session is exactly
// what the transport sent and read.
type HTTPFactory interface {
	transport.Factory
	// Origin returns the origin every request of the factory goes to.
	Origin() auth.Origin
	// WithBase returns a copy of the factory whose connections carry their
	// requests through wrap(base), base being the round tripper that would
	// have carried them, below the credentials.
	WithBase(wrap func(base http.RoundTripper) http.RoundTripper) transport.Factory
}

// credentialed is an HTTPFactory that can leave its credentials out
// (streamablehttp.Factory.WithoutCredentials).
type credentialed interface {
	WithoutCredentials() transport.Factory
}

// ReplayOrigin is the origin a replayed HTTP session is addressed to when
// no live factory is given. No request leaves the process: the replaying
// round tripper answers them all.
const ReplayOrigin = replay.ReplayOrigin

// A Factory is what Open returns: a transport.Factory that records, replays
// or passes through one session, and whose Close ends it the same way for
// every transport: it writes the recording, reports what replay did not
// use, and returns the first mismatch.
type Factory struct {
	path string
	o    *Options
	mode Mode
	kind transport.Kind
	live transport.Factory
	fs   hook.FS

	p       *replay.Player       // replay
	hrec    *record.HTTPRecorder // recording at the HTTP level
	sniff   *record.Sniffer      // recording an HTTP factory at the message level: its credentials
	recLive transport.Factory    // live, wrapped for sniff
	inner   transport.Factory
	rep     replay.Report

	mu    sync.Mutex // guards the fields below
	used  bool
	conn  *replay.PlayConn
	rt    *replay.PlayHTTP
	rconn *record.Conn

	saveOnce  sync.Once // the recording is written once: when the session ends, or by Close
	saveErr   error
	closeOnce sync.Once
	closeErr  error
}

var _ transport.Classifier = (*Factory)(nil)

// Open returns the factory that opts.Mode asks for, for the cassette at path:
//
//   - ModeReplay: a replay of the cassette; no server is started. live may
//     be nil; if it is an HTTPFactory, the replay goes through it (its
//     limits, headers and endpoint path; nothing leaves the process) but
//     for its credentials, which replay does without: no token is asked
//     of an authorization server, and a recorded 401 or 403 the client
//     recovered from by sending its request again is passed over.
//   - ModeRecord: live, recorded to path when the factory is closed.
//   - ModeRecordOnce: replay if the cassette exists, record if not.
//   - ModePassthrough: live, neither read nor written.
//
// Every transport is recorded at the message level but Streamable HTTP,
// which is recorded at the HTTP level: live must then be an HTTPFactory (as
// streamablehttp.New's result is). Open returns ErrNotRecorded (wrapped,
// saying how to record it) for a missing cassette in ModeReplay, a
// *FormatError for one that cannot be replayed, and an *OptionsError for
// an option the cassette's transport cannot use or a missing live factory.
func Open(path string, live transport.Factory, opts *Options) (*Factory, error) {
	f, exists, err := newFactory(path, live, opts)
	if err != nil {
		return nil, err
	}
	switch f.mode {
	case ModeReplay:
		return f.openReplay(exists)
	case ModeRecord, ModePassthrough:
		return f.openLive()
	}
	return nil, &OptionsError{Func: "Open", Option: "Mode", Value: f.mode.String(), Err: errors.New("unknown mode")}
}

// newFactory checks path and resolves opts' mode: ModeRecordOnce replays
// the cassette if it exists, and records it if not. It reports whether
// the cassette exists, for the modes that read it.
func newFactory(path string, live transport.Factory, opts *Options) (*Factory, bool, error) {
	o := opts.withLive(live)
	f := &Factory{path: path, o: o, live: live}
	if o.VCR != nil {
		f.fs = o.VCR.FS
	}
	if f.fs == nil {
		f.fs = diskFS{}
	}
	if path == "" {
		return nil, false, &OptionsError{Func: "Open", Option: "path", Err: errNoFile}
	}
	if fi, err := os.Stat(path); (o.VCR == nil || o.VCR.FS == nil) && err == nil && fi.IsDir() {
		return nil, false, &OptionsError{Func: "Open", Option: "path", Value: path, Err: fmt.Errorf("%w: a directory", errNoFile)}
	}
	f.mode = o.Mode
	exists := false
	if f.mode == ModeRecordOnce || f.mode == ModeReplay {
		exists = f.fs.IsFileExists(path)
	}
	if f.mode == ModeRecordOnce {
		f.mode = ModeRecord
		if exists {
			f.mode = ModeReplay
		}
	}
	return f, exists, nil
}

// openReplay prepares the replay of the cassette at f.path, each step
// once: load (bytes → lines → model), analyse, the options checked
// against its transport, plan, players.
func (f *Factory) openReplay(exists bool) (*Factory, error) {
	if !exists {
		return nil, fmt.Errorf("cassette %s: %w; record it by running against the live server with %s=1", f.path, ErrNotRecorded, EnvRecord)
	}
	data, err := f.read()
	if err != nil {
		return nil, err
	}
	c, infos, err := parse(f.path, data)
	if err != nil {
		return nil, err
	}
	if err := f.checkReplay(c, "Open"); err != nil {
		return f, err
	}
	return f, f.replay(c, infos, "Open")
}

// read returns the bytes of the cassette at f.path, at most format.Limit.
func (f *Factory) read() ([]byte, error) {
	data, err := f.fs.ReadFile(f.path)
	var ferr *FormatError
	switch {
	case errors.As(err, &ferr):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("cassette %s: %w", f.path, err)
	case len(data) > format.Limit:
		return nil, &FormatError{File: f.path, Err: fmt.Errorf("larger than %d bytes", format.Limit)}
	}
	return data, nil
}

// openLive prepares f to record its live factory's session, or to pass
// it through: the options checked against the live transport, and the
// recorder put where it sees what crosses.
func (f *Factory) openLive() (*Factory, error) {
	o, live := f.o, f.live
	if live == nil {
		return nil, &OptionsError{Func: "Open", Option: "live", Value: f.mode.String(), Err: errNoLive}
	}
	f.kind = live.Kind()
	if err := checkOptions("Open", o, f.kind); err != nil {
		return nil, err
	}
	if len(o.Faults) > 0 {
		return nil, &OptionsError{Func: "Open", Option: "Faults", Value: f.mode.String(), Err: fmt.Errorf("%w: faults are injected in replay only", transport.ErrBadFault)}
	}
	if f.mode == ModeRecord && f.kind == transport.KindStreamableHTTP {
		hf, ok := transport.As[HTTPFactory](live)
		if !ok {
			return nil, &OptionsError{Func: "Open", Option: "live", Value: fmt.Sprintf("%T", live),
				Err: errors.New("a Streamable HTTP factory is recorded through its base round tripper: want an HTTPFactory such as streamablehttp.New's")}
		}
		cl, _ := transport.As[transport.Classifier](live)
		f.hrec = record.NewHTTP(hf.Origin(), cl, f.sessionEnded)
		f.inner = hf.WithBase(f.hrec.Wrap)
	}
	if hf, ok := transport.As[HTTPFactory](live); ok && f.mode == ModeRecord && f.hrec == nil {
		// A message-level session over HTTP (legacy SSE): what is
		// recorded is the messages, but the credentials the transport
		// sends are learned below it, to be redacted wherever they
		// appear.
		f.sniff = record.NewSniffer(secretHeaderSet(o))
		f.recLive = hf.WithBase(f.sniff.Wrap)
	}
	return f, nil
}

// Replay returns a factory that replays c, a cassette already loaded or
// built in code, as Open does in ModeReplay (live may be nil, or an
// HTTPFactory to replay through). c must not change while it replays.
func Replay(c *Cassette, live transport.Factory, opts *Options) (*Factory, error) {
	f := &Factory{path: c.File, o: opts.withLive(live), live: live, mode: ModeReplay}
	fc := c.toFormat()
	if err := f.checkReplay(fc, "Replay"); err != nil {
		return f, err
	}
	// c was built in code, or may have changed since it was loaded: its
	// one analysis is here.
	infos, err := format.Analyse(fc)
	if err != nil {
		return f, exported(err)
	}
	return f, f.replay(fc, infos, "Replay")
}

// checkReplay takes c's transport as f's, and checks f's options
// against it (fn names the caller in an *OptionsError).
func (f *Factory) checkReplay(c *format.Cassette, fn string) error {
	f.kind = c.Kind()
	return checkOptions(fn, f.o, f.kind)
}

// replay plans the replay of c from infos, what c's analysis learnt of
// its lines, and prepares the players: a connection's at Transport, or
// an HTTP round tripper now.
func (f *Factory) replay(c *format.Cassette, infos []format.LineInfo, fn string) error {
	p, err := replay.NewPlayer(c, infos, replayConfig(f.o))
	if err != nil {
		var oerr *OptionsError
		if errors.As(err, &oerr) {
			oerr.Func = fn
		}
		return exported(err)
	}
	if err := checkRedaction(c, f.o); err != nil {
		return err
	}
	f.p = p
	if f.kind != transport.KindStreamableHTTP {
		return nil
	}
	f.rt = replay.NewPlayHTTP(p, &f.rep)
	live := f.live
	if cf, ok := transport.As[credentialed](live); ok {
		live = cf.WithoutCredentials() // replay needs none (internal/replay/refusals.go)
	}
	if hf, ok := transport.As[HTTPFactory](live); ok {
		f.inner = hf.WithBase(func(http.RoundTripper) http.RoundTripper { return f.rt })
		return nil
	}
	inner, err := streamablehttp.New(ReplayOrigin+p.EndpointPath(), &streamablehttp.Options{Base: f.rt, DisableStandaloneSSE: !p.HasStandalone()})
	if err != nil {
		return fmt.Errorf("cassette %s: %w", c.File, err)
	}
	f.inner = inner
	return nil
}

// Mode returns what the factory does: ModeReplay, ModeRecord or
// ModePassthrough (ModeRecordOnce resolved).
func (f *Factory) Mode() Mode { return f.mode }

// RecordsExchanges reports whether the factory records or replays (not
// ModePassthrough). A client then opens no listen for a task's status,
// whose end has no fixed place among the requests.
func (f *Factory) RecordsExchanges() bool { return f.mode != ModePassthrough }

// Kind returns the kind of the recorded or live transport.
func (f *Factory) Kind() transport.Kind { return f.kind }

// Transport returns the transport of the factory's one session. Called a
// second time it returns an error (but in ModePassthrough).
func (f *Factory) Transport() (mcp.Transport, error) {
	if f.mode == ModePassthrough {
		return f.live.Transport()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.used {
		return nil, errUsed
	}
	f.used = true
	switch {
	case f.inner != nil:
		return f.inner.Transport()
	case f.mode == ModeReplay:
		f.conn = replay.NewPlayConn(f.p, &f.rep)
		return replay.NewTransport(f.conn), nil
	}
	live := f.live
	if f.recLive != nil {
		live = f.recLive
	}
	inner, err := live.Transport()
	if err != nil {
		return nil, err
	}
	cl, _ := transport.As[transport.Classifier](f.live)
	return record.NewTransport(inner, func(c mcp.Connection) *record.Conn {
		rc := record.NewConn(c, cl, f.sessionEnded)
		f.mu.Lock()
		f.rconn = rc
		f.mu.Unlock()
		return rc
	}), nil
}

// Unwrap returns the live factory the cassette records or passes
// through, so that transport.As finds its capabilities (a
// [SecretHolder]) through the cassette; nil when the cassette
// replays, where the sessions are the cassette's own. The cassette's own
// Classify and PinnedProtocolVersion stand in every mode.
func (f *Factory) Unwrap() transport.Factory {
	if f.mode == ModeReplay {
		return nil
	}
	return f.live
}

// Classify implements transport.Classifier. The JSON-RPC error (code
// CodeMismatch) a replayed request was answered with stands for its
// *MismatchError, which Classify returns (it matches
// transport.ErrMismatch): this module's client puts it in the error its
// call returns, where errors.As finds it, with the class
// client.ClassMismatch. (A go-sdk client's caller can ask Classify the
// same.) Other errors get the live (or replaying) transport's classifier:
// a replayed ending's error needs none.
func (f *Factory) Classify(err error) error {
	if merr := f.rep.Mismatch(err); merr != nil {
		return merr
	}
	for _, x := range []transport.Factory{f.inner, f.live} {
		if cl, ok := transport.As[transport.Classifier](x); ok {
			return cl.Classify(err)
		}
	}
	return nil
}

// PinnedProtocolVersion implements transport.ProtocolPinner. Recording, it
// is the live transport's pin (legacy SSE speaks 2024-11-05 only).
// Replaying, it is the recorded revision when the recorded client asked for
// that revision alone (there is no server/discover in the cassette), so
// that a client whose profile negotiates replays the session as recorded;
// when the recorded client negotiated, there is no pin, and the client
// negotiates again as it did.
func (f *Factory) PinnedProtocolVersion() string {
	if f.p == nil {
		if p, ok := transport.As[transport.ProtocolPinner](f.live); ok {
			return p.PinnedProtocolVersion()
		}
		return ""
	}
	if f.kind == transport.KindSSE || !f.p.Discovers() {
		return f.p.Cassette().Header.Protocol
	}
	return ""
}

// RecordedRevision returns, when f replays, where the recorded session
// settled its protocol revision ("cassette docs.jsonl:3") and that
// revision; "", "" otherwise. A client names it, not a server, when it
// refuses the revision replay negotiated.
func (f *Factory) RecordedRevision() (where, revision string) {
	if f.p == nil {
		return "", ""
	}
	// The line is the answer to initialize, or else the first message
	// that carries the recorded revision.
	c, first := f.p.Cassette(), -1
	var hs format.HeaderScan
	for i := range c.Interactions {
		m, err := format.ScanMessage(f.p.Canon(i))
		if f.p.Canon(i) == nil || err != nil {
			continue
		}
		if hs.Scan(format.Side(&c.Interactions[i]), &m); hs.FromInit {
			return fmt.Sprintf("cassette %s:%d", c.File, c.Line(i)), c.Header.Protocol
		}
		if first < 0 && hs.Protocol == c.Header.Protocol {
			first = i
		}
	}
	if first < 0 {
		return "cassette " + c.File, c.Header.Protocol
	}
	return fmt.Sprintf("cassette %s:%d", c.File, c.Line(first)), c.Header.Protocol
}

// Unused returns the recorded client messages the replayed session has not
// sent so far (all of them before it starts; none when not replaying).
func (f *Factory) Unused() []Unused {
	if f.p == nil {
		return nil
	}
	f.mu.Lock()
	conn, rt := f.conn, f.rt
	f.mu.Unlock()
	var lines []int
	switch {
	case conn != nil:
		lines = conn.Unused()
	case rt != nil:
		lines = rt.Unused()
	default:
		lines = f.p.Unused()
	}
	us := make([]Unused, len(lines))
	for k, i := range lines {
		us[k] = Unused{Line: f.p.Cassette().Line(i), Method: f.p.Method(i)}
		if us[k].Method == "" && f.p.Cassette().Interactions[i].HTTP != nil {
			us[k].Method = "HTTP " + f.p.Cassette().Interactions[i].HTTP.Method
		}
	}
	return us
}

// unusedRequests returns the recorded client requests (calls with an id)
// the replayed session never made.
func (f *Factory) unusedRequests() []Unused {
	f.mu.Lock()
	conn, rt := f.conn, f.rt
	f.mu.Unlock()
	var out []Unused
	for _, u := range f.Unused() {
		i := u.Line - 2
		if conn != nil && conn.Excused(i) || rt != nil && rt.Excused(i) {
			continue // a fault answered it, or ended the session before it
		}
		if c := f.p.Canon(i); c != nil {
			if m, err := format.ScanMessage(c); err == nil && m.Kind == format.MsgCall {
				out = append(out, u)
			}
		}
	}
	return out
}

// Err returns the first mismatch of the replayed session so far, or nil.
func (f *Factory) Err() error { return f.rep.First() }

// Close ends the factory's session. Recording, it closes the session if the
// client has not, and returns the result of writing the cassette
// (atomically, or through the go-vcr storage of package cassette/vcr),
// which happens as soon as the session ends (the client closes it, or
// deletes an HTTP session) or else here (a stateless HTTP session): a
// recording that cannot be written is a *RecordError saying why, and no
// earlier cassette is overwritten. Replaying, it returns the first
// *MismatchError of the session, or else (unless Options.AllowUnused) an
// *UnusedError naming the recorded client requests never made. Close may
// be called more than once; later calls return the first result.
func (f *Factory) Close() error {
	f.closeOnce.Do(func() {
		switch f.mode {
		case ModeReplay:
			f.mu.Lock()
			if f.conn != nil {
				f.conn.Close()
			}
			f.mu.Unlock()
			f.closeErr = f.rep.First()
			if us := f.unusedRequests(); f.closeErr == nil && !f.o.AllowUnused && len(us) > 0 {
				f.closeErr = &UnusedError{Cassette: f.path, Unused: us}
			}
		case ModeRecord:
			f.mu.Lock()
			rc := f.rconn
			f.mu.Unlock()
			if rc != nil {
				rc.Close() // ends the session, which writes the recording
			}
			f.finish()
			f.closeErr = f.saveErr
		}
	})
	return f.closeErr
}

// Discard ends the factory as Close does, but writes no recording: the
// cassette at the path, if any, is left as it was. A recording that was
// already written (the session ended and Options.WriteAtClose was not set)
// stays written. Replaying, Discard is Close. Close and Discard may be
// called more than once, in any order; later calls return the first result.
func (f *Factory) Discard() error {
	if f.mode == ModeRecord {
		f.saveOnce.Do(func() {}) // nothing will write now
	}
	return f.Close()
}

// sessionEnded is called when the recorded session ends (the client
// closes a message-level session, or deletes an HTTP one).
func (f *Factory) sessionEnded() {
	if !f.o.WriteAtClose {
		f.finish()
	}
}

// finish writes the recording, once: when the session ends (the client
// closes a message-level session, or deletes an HTTP one), or else when
// the factory is closed.
func (f *Factory) finish() {
	f.saveOnce.Do(func() {
		if err := f.save(); err != nil {
			f.saveErr = err
		}
	})
}

// save writes the recording, in the flow's order: the model built from
// what was taken, checked (the recording's one analysis), then its bytes
// written. It returns why nothing was written, or nil.
func (f *Factory) save() *RecordError {
	notWritten := func(r RecordReason, err error) *RecordError {
		return &RecordError{Cassette: f.path, Reason: recordReason(err, r), Err: err}
	}
	c, err := f.recording()
	if err != nil {
		return notWritten(RecordInvalid, err)
	}
	c.File = f.path
	if err := checkRecording(c); err != nil {
		return notWritten(RecordInvalid, err)
	}
	data, err := c.Marshal()
	if err != nil {
		return notWritten(RecordInvalid, exported(err))
	}
	if len(data) > format.Limit {
		return notWritten(RecordTooLarge, record.ErrTooLarge)
	}
	if err := f.fs.WriteFile(f.path, data); err != nil {
		return notWritten(RecordWrite, err)
	}
	return nil
}

// recording returns the cassette of the recorded session.
func (f *Factory) recording() (*format.Cassette, error) {
	if f.hrec != nil {
		entries, err := f.hrec.Close()
		if err != nil {
			return nil, err
		}
		return record.BuildHTTP(entries, f.hrec.Origin(), recordConfig(f.o))
	}
	f.mu.Lock()
	rc := f.rconn
	f.mu.Unlock()
	if rc == nil {
		return nil, record.ErrIncomplete
	}
	var stderr []byte
	if f.o.Stderr {
		if d, ok := transport.As[transport.Diagnoser](rc); ok {
			if dg := d.Diagnose(); dg != nil {
				stderr = dg.Stderr
			}
		}
	}
	var learned []http.Header
	if f.sniff != nil {
		learned = f.sniff.Taken()
	}
	entries, err := rc.Taken()
	if err != nil {
		return nil, err
	}
	return record.BuildMessages(f.kind, entries, recordConfig(f.o), stderr, learned...)
}

// checkRecording analyses c, the model the recorder built, as replay
// analyses the file. A live peer or a go-vcr hook can break a rule replay
// relies on (a response that answers no pending request, an initialize
// answer that disagrees with the header): a cassette that would not load
// is not written.
func checkRecording(c *format.Cassette) error {
	if _, err := format.Analyse(c); err != nil {
		return fmt.Errorf("recorded session would not load: %w", exported(err))
	}
	return nil
}

// diskFS reads cassettes from disk, at most MaxSize bytes, and writes them
// atomically.
type diskFS struct{}

func (diskFS) ReadFile(name string) ([]byte, error) { return readFile(name) }

func (diskFS) WriteFile(name string, data []byte) error {
	return atomicfile.WriteFile(name, data, 0o644)
}

func (diskFS) IsFileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
