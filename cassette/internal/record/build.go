package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BuildMessages turns a message-level recording into a redacted cassette:
// the messages in the order the client saw them (less the client messages
// whose write failed), and how the session ended: where the server ended
// it, or, at the end, the client's close, naming the calls it left
// unanswered.
//
// learned are the credential headers sent below the transport (an HTTP
// factory recorded at the message level), whose values are redacted
// wherever they appear.
func BuildMessages(kind transport.Kind, entries []Entry, cfg *Config, stderr []byte, learned ...http.Header) (*format.Cassette, error) {
	red := redact.New(cfg.Redact)
	secret := cfg.Secret
	for _, h := range learned {
		red.LearnHeaders(secret, h)
	}
	var hs format.HeaderScan
	c := &format.Cassette{Header: format.Header{Format: format.FormatName, Version: format.Version, Transport: kind.String()}}
	cfg.declare(&c.Header)
	c.Interactions = make([]format.Interaction, 0, len(entries)+1)
	var pend pendingCalls
	serverEnded := false
	skip, ended := closingCancels(len(entries), func(i int) (string, jsonrpc.Message) {
		if entries[i].end != nil || entries[i].failed {
			return "", nil
		}
		return entries[i].from, entries[i].msg
	})
	heard := heardCalls(entries)
	for i, e := range entries {
		if skip[i] {
			continue
		}
		if r, ok := e.msg.(*jsonrpc.Request); ok && e.failed && r.IsCall() && heard[format.LiveIDKey(r.ID)] {
			// The write failed (its context ended while the transport
			// waited to hear it was taken: legacy SSE's 202), but the
			// server had it: it answered, or told of its progress.
			e.failed = false
		}
		if r, ok := e.msg.(*jsonrpc.Response); ok && e.from == format.FromServer && e.end == nil && !e.failed {
			if at, ok := ended[format.LiveIDKey(r.ID)]; ok && i > at {
				continue // the listen's answer to the client's closing cancellation
			}
		}
		if e.end != nil {
			c.Interactions = append(c.Interactions, format.Interaction{Kind: format.KindClose, Ending: serverEnding(e, red)})
			serverEnded = true
			continue
		}
		if e.failed {
			continue
		}
		in, err := messageLine(e, red, &hs, &pend)
		if err != nil {
			return nil, err
		}
		c.Interactions = append(c.Interactions, in)
	}
	if !serverEnded {
		end := &format.Ending{End: format.EndClient, Pending: pend.list()}
		if len(stderr) > 0 {
			end.Stderr = red.Text(string(stderr))
		}
		c.Interactions = append(c.Interactions, format.Interaction{Kind: format.KindClose, Ending: end})
	}
	c.Header.Protocol, c.Header.Server = hs.Protocol, hs.Server
	if c.Header.Protocol == "" || c.Header.Server == "" {
		return nil, ErrIncomplete
	}
	OrderMessages(c)
	return c, nil
}

// messageLine encodes entry e, a message, as its line: canonical, scanned
// for the header (hs) and the calls left pending (pend), redacted.
func messageLine(e Entry, red *redact.Redactor, hs *format.HeaderScan, pend *pendingCalls) (format.Interaction, error) {
	canon, err := format.CanonicalMessage(e.msg)
	if err != nil {
		return format.Interaction{}, fmt.Errorf("encoding a message: %w", err)
	}
	info, err := format.ScanMessage(canon)
	if err != nil {
		return format.Interaction{}, fmt.Errorf("encoding a message: %w", err)
	}
	hs.Scan(e.from, &info)
	pend.note(e.from, &info)
	if canon, err = red.Message(canon); err != nil {
		return format.Interaction{}, fmt.Errorf("redacting a message: %w", err)
	}
	return format.Interaction{Kind: format.KindMessage, From: e.from, Message: canon}, nil
}

// pendingCalls are the client calls of a session not yet answered.
type pendingCalls struct {
	raw   map[string][]byte // by id key: the id as sent
	order []string          // the id keys, in the order first sent
}

// note counts a message of the session, from its side.
func (p *pendingCalls) note(from string, info *format.MsgInfo) {
	switch {
	case from == format.FromClient && info.Kind == format.MsgCall:
		if p.raw == nil {
			p.raw = map[string][]byte{}
		}
		if _, ok := p.raw[info.ID]; !ok {
			p.order = append(p.order, info.ID)
		}
		p.raw[info.ID] = info.RawID
	case from == format.FromServer && info.Kind == format.MsgResponse:
		delete(p.raw, info.ID)
	}
}

// list returns the ids of the calls still pending, in the order sent.
func (p *pendingCalls) list() []json.RawMessage {
	var out []json.RawMessage
	for _, id := range p.order {
		if raw, ok := p.raw[id]; ok {
			out = append(out, raw)
		}
	}
	return out
}

// heardCalls returns the id keys of the client calls the server showed it
// had: it answered them, or sent a progress notification with their
// progress token.
func heardCalls(entries []Entry) map[string]bool {
	heard := map[string]bool{}
	tokens := map[string]bool{}
	for _, e := range entries {
		switch m := e.msg.(type) {
		case *jsonrpc.Response:
			if e.from == format.FromServer {
				heard[format.LiveIDKey(m.ID)] = true
			}
		case *jsonrpc.Request:
			if e.from == format.FromServer && m.Method == "notifications/progress" {
				tokens[ProgressToken(m.Params)] = true
			}
		}
	}
	for _, e := range entries {
		if m, ok := e.msg.(*jsonrpc.Request); ok && e.from == format.FromClient && m.IsCall() {
			if tok := ProgressToken(m.Params); tok != "" && tokens[tok] {
				heard[format.LiveIDKey(m.ID)] = true
			}
		}
	}
	return heard
}

// serverEnding records how the server ended a session: a child's exit
// status and the tail of its standard error, or the error that ended
// reading (its text only when no exit status explains it: a process id in
// it would make every recording differ).
func serverEnding(e Entry, red *redact.Redactor) *format.Ending {
	end := &format.Ending{End: format.EndError, Class: e.class}
	if errors.Is(e.end, io.EOF) {
		end.End = format.EndEOF
	}
	d := e.diag
	if d != nil {
		end.Stderr = red.Text(string(d.Stderr))
		if d.Exited {
			end.Exit = &format.Exit{Code: d.ExitCode, Signal: d.Signal}
		}
		if d.Err != nil && end.Class == 0 {
			end.Class = ClassOf(d.Err, nil)
		}
	}
	if end.End == format.EndError && (d == nil || !d.Exited) {
		end.Error = red.Text(e.end.Error())
	}
	return end
}

// BuildHTTP turns a captured HTTP session into a redacted cassette.
func BuildHTTP(entries []HTTPEntry, origin auth.Origin, cfg *Config) (*format.Cassette, error) {
	b := &httpBuild{red: redact.New(cfg.Redact), secret: cfg.Secret, origin: origin, ids: redact.EventIDs{}, sessions: sessionIDs(entries),
		calls: map[int]string{}, answered: map[int]bool{}, resumed: map[int]bool{}}
	// Every credential the transport sent, and every cookie the server set,
	// is redacted wherever it appears, not only in its header. They are
	// learnt in the order of the lines, and numbered so.
	for _, i := range lineOrder(entries) {
		if h := entries[i].in.HTTP; h != nil {
			b.red.LearnHeaders(b.secret, h.Headers)
		}
	}
	c := &format.Cassette{Header: format.Header{Format: format.FormatName, Version: format.Version, Transport: transport.KindStreamableHTTP.String()}}
	cfg.declare(&c.Header)
	skip, ended := closingCancels(len(entries), func(i int) (string, jsonrpc.Message) {
		in := &entries[i].in
		if in.Kind != format.KindRequest || len(entries[i].raw) == 0 {
			return "", nil
		}
		m, err := jsonrpc.DecodeMessage(entries[i].raw)
		if err != nil {
			return "", nil
		}
		return format.FromClient, m
	})
	b.closing = closingAnswers(entries, ended)
	skipStream := map[int]bool{}
	for i := range skip {
		skipStream[entries[i].in.HTTP.Stream] = true
	}
	b.lastReq = lastRequest(entries, skip)
	for _, i := range lineOrder(entries) {
		e := entries[i]
		if e.in.HTTP != nil && skipStream[e.in.HTTP.Stream] || b.closing.events[i] {
			continue
		}
		if e.in.HTTP == nil {
			c.Interactions = append(c.Interactions, e.in) // the session's end
			continue
		}
		in, err := b.line(i, e)
		if err != nil {
			return nil, err
		}
		c.Interactions = append(c.Interactions, in)
	}
	c.Header.Protocol, c.Header.Server = b.hs.Protocol, b.hs.Server
	if c.Header.Protocol == "" || c.Header.Server == "" {
		return nil, ErrIncomplete
	}
	OrderHTTP(c)
	if err := hook.Apply(c, cfg.Hooks, true, hook.AfterCapture, hook.BeforeSave); err != nil {
		return nil, err
	}
	return c, nil
}

// httpBuild turns the entries of a recorded HTTP session into its lines.
type httpBuild struct {
	red      *redact.Redactor
	secret   map[string]bool // the headers whose values are credentials
	origin   auth.Origin
	hs       format.HeaderScan
	ids      redact.EventIDs
	sessions *redact.Sessions
	closing  closingLines
	lastReq  int            // the entry of the client's last request
	calls    map[int]string // stream → the id of the call its request carries
	answered map[int]bool   // streams whose call was answered on them
	resumed  map[int]bool   // streams that resume another (GET with Last-Event-ID)
}

// line returns the line of entry i, e: ids renamed, secrets redacted, its
// ending evened out.
func (b *httpBuild) line(i int, e HTTPEntry) (format.Interaction, error) {
	in := e.in
	h := *in.HTTP
	in.HTTP = &h
	if in.Ending != nil {
		in.Ending = b.ending(i, h.Stream, *in.Ending, e.err)
	}
	red, sessions := b.red, b.sessions
	h.URL = red.Text(sessions.In(h.URL))
	h.Event, h.ID, h.Retry = red.Text(h.Event), red.Text(b.ids.Alias(sessions.In(h.ID))), red.Text(h.Retry)
	h.Headers = sessions.Headers(h.Headers)
	if v := h.Headers.Get("Last-Event-ID"); v != "" {
		if in.Kind == format.KindRequest {
			b.resumed[h.Stream] = true
		}
		h.Headers = h.Headers.Clone()
		h.Headers.Set("Last-Event-ID", b.ids.Alias(v))
	}
	// The origin is renamed after redaction, so that a secret that holds
	// it is still found whole.
	h.Headers = redact.RenameOriginHeaders(b.origin, redact.Headers(red, b.secret, h.Headers))
	raw := sessions.Bytes(e.raw)
	if len(raw) == 0 {
		return in, nil
	}
	canon, info, ok := format.AsMessage(raw)
	if !ok {
		in.Text = redact.RenameOrigin(b.origin, red.Text(string(raw)))
		return in, nil
	}
	b.hs.Scan(format.Side(&in), &info)
	switch {
	case in.Kind == format.KindRequest && info.Kind == format.MsgCall:
		b.calls[h.Stream] = info.ID
	case in.Kind == format.KindEvent && info.Kind == format.MsgResponse && (b.calls[h.Stream] == info.ID || b.resumed[h.Stream]):
		// The stream carried the answer to its call, or, resumed, to the
		// call of the stream it resumes.
		b.answered[h.Stream] = true
	}
	redacted, err := red.Message(canon)
	if err != nil {
		return format.Interaction{}, fmt.Errorf("redacting a message: %w", err)
	}
	in.Message = redact.RenameOriginMessage(b.origin, redacted)
	return in, nil
}

// ending returns how entry i, the end of a stream, is recorded (err: the
// error that ended it, if any).
func (b *httpBuild) ending(i, stream int, end format.Ending, err error) *format.Ending {
	switch {
	case b.answered[stream] && end.End != format.EndError:
		// Once a POST stream has carried the answer to its call, the
		// client reads nothing more from it: how it ended after that (the
		// server's end, the client's drain, the session's end) is timing,
		// not behaviour.
		end.End = format.EndEOF
	case b.closing.streams[stream]:
		// The listen the client cancelled as it closed: its answer was
		// left out, and the stream was open until the session ended, as
		// when the answer comes too late to be seen.
		end.End = format.EndSession
	case end.End == format.EndClient && i > b.lastReq:
		// A stream the client stopped reading once it had made its last
		// request (a standalone GET, a 2026-07-28 subscriptions/listen,
		// closed as the client closes) was open until the session ended:
		// whether the client's close or the session's end came first is
		// timing, and replay waits for the client either way.
		end.End = format.EndSession
	}
	if err != nil {
		end.Error = redact.RenameOrigin(b.origin, b.red.Text(err.Error()))
	}
	return &end
}

// closingCancels returns the entries (of n; msg returns who sent each and
// its message, nil for none) that are a client's notifications/cancelled
// of its subscriptions/listen requests sent after its last other message:
// a 2026-07-28 client ends its subscription so as it closes the session,
// and the go-sdk sends that cancellation best-effort, off the closing
// path, sometimes after the session is gone. It is the session's close,
// which the cassette records, and is left out, or re-recordings would
// differ by it. ended maps the id key of each listen so cancelled to the
// entry of its cancellation: the server's answer to it, when it comes
// before the session is gone, is the close too (the client no longer
// waits for it) and is left out as well, the listen left pending.
func closingCancels(n int, msg func(i int) (from string, m jsonrpc.Message)) (skip map[int]bool, ended map[string]int) {
	listens := map[string]bool{}
	last := -1 // the last client message that is not such a cancellation
	cancels := map[int]bool{}
	for i := 0; i < n; i++ {
		from, m := msg(i)
		if from != format.FromClient || m == nil {
			continue
		}
		r, ok := m.(*jsonrpc.Request)
		switch {
		case ok && r.IsCall() && r.Method == "subscriptions/listen":
			listens[format.LiveIDKey(r.ID)] = true
			last = i
		case ok && !r.IsCall() && r.Method == "notifications/cancelled" && listens[format.CancelledID(r.Params)]:
			cancels[i] = true
		default:
			last = i
		}
	}
	ended = map[string]int{}
	for i := range cancels {
		if i < last {
			delete(cancels, i)
			continue
		}
		_, m := msg(i)
		ended[format.CancelledID(m.(*jsonrpc.Request).Params)] = i
	}
	return cancels, ended
}

// closingLines are the lines of an HTTP recording that are a closing
// listen's answer (see closingCancels): its events, and its streams.
type closingLines struct {
	events  map[int]bool // entries of the answer events, left out
	streams map[int]bool // the streams they were on, ended as the session's
}

// closingAnswers finds the events that answer a listen the client
// cancelled as it closed (ended, from closingCancels), after the
// cancellation, on the listen's own stream.
func closingAnswers(entries []HTTPEntry, ended map[string]int) closingLines {
	cl := closingLines{events: map[int]bool{}, streams: map[int]bool{}}
	if len(ended) == 0 {
		return cl
	}
	listenOf := map[int]string{} // stream → the id key of the listen it carries
	for i := range entries {
		e := &entries[i]
		if e.in.HTTP == nil || len(e.raw) == 0 {
			continue
		}
		m, err := jsonrpc.DecodeMessage(e.raw)
		if err != nil {
			continue
		}
		switch v := m.(type) {
		case *jsonrpc.Request:
			if e.in.Kind == format.KindRequest && v.IsCall() && v.Method == "subscriptions/listen" {
				listenOf[e.in.HTTP.Stream] = format.LiveIDKey(v.ID)
			}
		case *jsonrpc.Response:
			id := format.LiveIDKey(v.ID)
			if at, ok := ended[id]; ok && e.in.Kind == format.KindEvent && i > at && listenOf[e.in.HTTP.Stream] == id {
				cl.events[i], cl.streams[e.in.HTTP.Stream] = true, true
			}
		}
	}
	return cl
}

// sessionIDs collects the session ids the server handed out
// (Mcp-Session-Id on a response), in order.
func sessionIDs(entries []HTTPEntry) *redact.Sessions {
	n := &redact.Sessions{}
	for i := range entries {
		in := &entries[i].in
		if in.Kind != format.KindResponse || in.HTTP == nil {
			continue
		}
		for _, v := range in.HTTP.Headers.Values("Mcp-Session-Id") {
			n.Add(v)
		}
	}
	return n
}

// lastRequest returns the index of the last request captured that is not
// the session's DELETE or skipped; -1 for none.
func lastRequest(entries []HTTPEntry, skip map[int]bool) int {
	last := -1
	for i := range entries {
		if in := &entries[i].in; in.Kind == format.KindRequest && in.HTTP.Method != http.MethodDelete && !skip[i] {
			last = i
		}
	}
	return last
}

// lineOrder returns the order in which entries are written: as captured,
// except that a stream's close line follows the stream's last line, and a
// response without a body (202 Accepted, 204 No Content) follows its
// request. When a stream ends, and when an empty answer arrives beside the
// events of another stream, is a matter of timing (the go-sdk drains a
// finished stream while the session goes on); where their lines go must not
// be, or re-recording would not give the same bytes. Neither carries
// anything a later line could depend on.
func lineOrder(entries []HTTPEntry) []int {
	attached := func(e *HTTPEntry) bool {
		return e.in.HTTP != nil && (e.in.Kind == format.KindClose || e.in.Kind == format.KindResponse && len(e.raw) == 0 && !format.IsSSE(e.in.HTTP.Headers))
	}
	follow := map[int][]int{}
	for i := range entries {
		if e := &entries[i]; attached(e) {
			follow[e.after] = append(follow[e.after], i)
		}
	}
	order := make([]int, 0, len(entries))
	var place func(i int)
	place = func(i int) {
		order = append(order, i)
		for _, j := range follow[i] {
			place(j)
		}
	}
	for i := range entries {
		if !attached(&entries[i]) {
			place(i)
		}
	}
	return order
}
