package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/looprig/mcp/transport"
)

// A LineInfo is what Analyse learns of one line, for the player.
type LineInfo struct {
	Canon []byte  // the line's message, canonical; nil without one
	Msg   MsgInfo // the message's kind, id and method, when canon is set
	Pair  int     // a response: the line of the request it answers; a call: the line of its answer; -1
}

// Analyse checks that c is a cassette a player can serve, the same whether
// it was parsed or built in code, and returns what it learnt of each line.
// Every problem is a *FormatError naming the line.
func Analyse(c *Cassette) ([]LineInfo, error) { return AnalyseLines(c, false) }

// OnAnalyse, when set, is called with each cassette AnalyseLines checks.
// Only tests set it, to count analyses; it is nil otherwise.
var OnAnalyse func(*Cassette)

// AnalyseLines is analyse; canonical says c's messages are canonical
// already (Parse made them so).
func AnalyseLines(c *Cassette, canonical bool) ([]LineInfo, error) {
	if OnAnalyse != nil {
		OnAnalyse(c)
	}
	kind, err := checkHeader(c)
	if err != nil {
		return nil, err
	}
	isHTTP := kind == transport.KindStreamableHTTP
	infos := make([]LineInfo, len(c.Interactions))
	streams := newStreamCheck()
	sessionEnded := -1
	for i := range c.Interactions {
		in := &c.Interactions[i]
		infos[i].Pair = -1
		err := lineMessage(in, canonical, &infos[i])
		if err == nil && sessionEnded >= 0 && (isHTTP || in.Kind != KindMessage) {
			err = fmt.Errorf("%s line after the session's end at line %d", in.Kind, c.Line(sessionEnded))
		}
		if err == nil {
			err = checkLine(c, i, kind, sessionEnded, streams)
		}
		if err != nil {
			return nil, &FormatError{File: c.File, Line: c.Line(i), Err: err}
		}
		if in.Kind == KindClose && in.HTTP == nil {
			sessionEnded = i
		}
	}
	if k, err := streams.done(); err != nil {
		return nil, &FormatError{File: c.File, Line: c.Line(k), Err: err}
	}
	if err := link(c, infos); err != nil {
		return nil, err
	}
	return infos, nil
}

// checkHeader checks c's header and returns its transport.
func checkHeader(c *Cassette) (transport.Kind, error) {
	h := &c.Header
	if h.Format != FormatName || h.Version < 1 || h.Version > Version {
		return 0, &FormatError{File: c.File, Line: 1, Err: fmt.Errorf("%w: format %q version %d", ErrVersion, h.Format, h.Version)}
	}
	kind, err := transport.ParseKind(h.Transport)
	if err != nil {
		return 0, &FormatError{File: c.File, Line: 1, Err: err}
	}
	if err := CheckDeclared(h); err != nil {
		return 0, &FormatError{File: c.File, Line: 1, Err: err}
	}
	if h.Protocol == "" || h.Server == "" {
		return 0, &FormatError{File: c.File, Line: 1, Err: errors.New("header without protocol or server")}
	}
	return kind, nil
}

// lineMessage reads in's message, if it has one, into info: canonical (made
// so unless canonical says it is) and scanned.
func lineMessage(in *Interaction, canonical bool, info *LineInfo) error {
	if in.Message == nil {
		return nil
	}
	if in.Text != "" {
		return errors.New("line with both message and text")
	}
	canon := []byte(in.Message)
	if !canonical {
		var err error
		if canon, err = canonjson.CanonicalNested(in.Message, 1); err != nil {
			return fmt.Errorf("message: %v", err)
		}
	}
	m, err := ScanMessage(canon)
	if err != nil {
		return fmt.Errorf("message: %v", err)
	}
	info.Canon, info.Msg = canon, m
	return nil
}

// checkLine checks line i's kind and fields against the cassette's
// transport and the lines before it (sessionEnded: the session's end, or
// -1), and feeds an HTTP line to streams.
func checkLine(c *Cassette, i int, kind transport.Kind, sessionEnded int, streams *streamCheck) error {
	in := &c.Interactions[i]
	isHTTP := kind == transport.KindStreamableHTTP
	switch in.Kind {
	case KindMessage:
		switch {
		case isHTTP:
			return errors.New("message line in a streamablehttp cassette")
		case in.From != FromClient && in.From != FromServer:
			return fmt.Errorf("from %q, want %q or %q", in.From, FromClient, FromServer)
		case in.Text != "" || in.HTTP != nil || in.Ending != nil:
			return errors.New("message line with text, HTTP fields or an ending")
		case in.Message == nil:
			return errors.New("message line without a message")
		case sessionEnded >= 0 && in.From == FromServer:
			return fmt.Errorf("server message after the session's end at line %d", c.Line(sessionEnded))
		}
	case KindRequest, KindResponse, KindEvent:
		if !isHTTP {
			return fmt.Errorf("%s line in a %s cassette", in.Kind, kind)
		}
		return streams.line(i, in)
	case KindClose:
		if in.From != "" || in.Message != nil || in.Text != "" || in.Ending == nil {
			return errors.New("close line without an ending, or with a message")
		}
		if err := checkEnding(in, isHTTP); err != nil {
			return err
		}
		if in.HTTP == nil {
			return nil
		}
		if !isHTTP {
			return fmt.Errorf("stream close line in a %s cassette", kind)
		}
		return streams.line(i, in)
	default:
		return fmt.Errorf("unknown kind %q", in.Kind)
	}
	return nil
}

// checkEnding checks an ending's fields against where it is.
func checkEnding(in *Interaction, isHTTP bool) error {
	e := in.Ending
	if e.Class != 0 && !slices.Contains(Recordable, e.Class) {
		return fmt.Errorf("ending class %q, want start, policy, auth, protocol, timeout or transport", e.Class)
	}
	session := in.HTTP == nil
	switch {
	case session && isHTTP && e.End != EndClient:
		return fmt.Errorf("session ending %q in a streamablehttp cassette, want %q", e.End, EndClient)
	case session && !isHTTP && e.End != EndEOF && e.End != EndError && e.End != EndClient:
		return fmt.Errorf("session ending %q, want eof, error or client", e.End)
	case !session && (e.Exit != nil || e.Stderr != "" || e.Pending != nil):
		return errors.New("stream close with an exit, stderr or pending calls")
	case e.Pending != nil && e.End != EndClient:
		return errors.New("pending calls in an ending other than the client's")
	case e.Written && (session || e.End != EndError):
		return errors.New("written in an ending other than a failed request's")
	}
	for _, id := range e.Pending {
		if _, err := IDKey(id); err != nil {
			return fmt.Errorf("pending: %v", err)
		}
	}
	return nil
}

// link pairs every response with the request it answers, and checks that the
// header agrees with the initialize exchange.
func link(c *Cassette, infos []LineInfo) error {
	type key struct {
		from string
		id   string
	}
	pending := map[key]int{}
	for i := range c.Interactions {
		m := &infos[i].Msg
		if refusedStream(&c.Interactions[i], infos[i].Canon) {
			// Refused outside JSON-RPC (a 401 asking for credentials or
			// a DPoP nonce, a 403, a 5xx): the calls it carried were
			// never answered, and the client may send them again with
			// the same ids.
			for k, j := range pending {
				if in := &c.Interactions[j]; in.HTTP != nil && in.HTTP.Stream == c.Interactions[i].HTTP.Stream {
					delete(pending, k)
				}
			}
		}
		if infos[i].Canon == nil {
			continue
		}
		from := Side(&c.Interactions[i])
		switch m.Kind {
		case MsgCall:
			k := key{from, m.ID}
			if j, dup := pending[k]; dup {
				return &FormatError{File: c.File, Line: c.Line(i), Err: fmt.Errorf("request id %s is already pending since line %d", m.RawID, c.Line(j))}
			}
			pending[k] = i
		case MsgResponse:
			other := FromClient
			if from == FromClient {
				other = FromServer
			}
			k := key{other, m.ID}
			j, ok := pending[k]
			if !ok {
				return &FormatError{File: c.File, Line: c.Line(i), Err: fmt.Errorf("response id %s answers no pending %s request", m.RawID, other)}
			}
			delete(pending, k)
			infos[i].Pair, infos[j].Pair = j, i
			if infos[j].Msg.Method == "initialize" && m.Error == nil {
				if err := checkInit(c, i, m.Result); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// refusedStream reports whether in is an HTTP response that refuses its
// request outside JSON-RPC: a status other than 2xx and no JSON-RPC
// message (canon nil) in its body.
func refusedStream(in *Interaction, canon []byte) bool {
	return in.Kind == KindResponse && in.HTTP != nil && canon == nil && (in.HTTP.Status < 200 || in.HTTP.Status > 299)
}

// side returns who sent a line's message.

func checkInit(c *Cassette, i int, result []byte) error {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return &FormatError{File: c.File, Line: c.Line(i), Err: fmt.Errorf("initialize result: %v", err)}
	}
	if r.ProtocolVersion != c.Header.Protocol || r.ServerInfo.Name != c.Header.Server {
		return &FormatError{File: c.File, Line: c.Line(i), Err: fmt.Errorf("initialize result (protocol %q, server %q) disagrees with the header (protocol %q, server %q)",
			r.ProtocolVersion, r.ServerInfo.Name, c.Header.Protocol, c.Header.Server)}
	}
	return nil
}

// streamCheck checks the HTTP lines of a cassette in order.
type streamCheck struct {
	last    int // the last stream opened
	streams map[int]*streamState
}

type streamState struct {
	req      int  // the request's line index
	answered bool // it has its response line
	sse      bool
	closed   bool
}

func newStreamCheck() *streamCheck { return &streamCheck{streams: map[int]*streamState{}} }

func (sc *streamCheck) line(i int, in *Interaction) error {
	h := in.HTTP
	if in.From != "" {
		return fmt.Errorf("%s line with from", in.Kind)
	}
	if h == nil || h.Stream <= 0 {
		return fmt.Errorf("%s line without a stream number", in.Kind)
	}
	if in.Kind != KindClose && in.Ending != nil {
		return fmt.Errorf("%s line with an ending", in.Kind)
	}
	if in.Kind == KindRequest {
		return sc.request(i, in)
	}
	s := sc.streams[h.Stream]
	if s == nil {
		return fmt.Errorf("%s line for stream %d, which has no request", in.Kind, h.Stream)
	}
	if s.closed {
		return fmt.Errorf("%s line for stream %d, which is closed", in.Kind, h.Stream)
	}
	if err := only(in, h.Method == "" && h.URL == "", "request fields"); err != nil {
		return err
	}
	switch in.Kind {
	case KindResponse:
		return s.response(in)
	case KindEvent:
		if !s.sse {
			return fmt.Errorf("event for stream %d, which has no event-stream response", h.Stream)
		}
		return only(in, h.Status == 0 && h.Headers == nil, "response fields")
	case KindClose:
		return s.close(in)
	}
	return nil
}

// only returns an error naming what in, a line of an HTTP stream, should
// not have, unless ok.
func only(in *Interaction, ok bool, what string) error {
	if !ok {
		return fmt.Errorf("%s line with %s", in.Kind, what)
	}
	return nil
}

// request checks request line i, in, which opens a stream.
func (sc *streamCheck) request(i int, in *Interaction) error {
	h := in.HTTP
	if h.Stream <= sc.last {
		return fmt.Errorf("request for stream %d after stream %d: streams are numbered in order", h.Stream, sc.last)
	}
	if !IsToken(h.Method) || h.URL == "" || h.URL[0] != '/' {
		return fmt.Errorf("request with method %q and url %q, want a method and a path", h.Method, h.URL)
	}
	if err := only(in, h.Status == 0 && h.Event == "" && h.ID == "" && h.Retry == "", "response or event fields"); err != nil {
		return err
	}
	sc.last = h.Stream
	sc.streams[h.Stream] = &streamState{req: i}
	return nil
}

// response checks the response line of stream s.
func (s *streamState) response(in *Interaction) error {
	h := in.HTTP
	if s.answered {
		return fmt.Errorf("second response for stream %d", h.Stream)
	}
	if h.Status < 100 || h.Status > 599 {
		return fmt.Errorf("response status %d", h.Status)
	}
	if err := only(in, h.Event == "" && h.ID == "" && h.Retry == "", "event fields"); err != nil {
		return err
	}
	s.answered, s.sse = true, IsSSE(h.Headers)
	if s.sse && (in.Message != nil || in.Text != "") {
		return errors.New("event-stream response with a body: its events are lines of their own")
	}
	return nil
}

// close checks the close line of stream s.
func (s *streamState) close(in *Interaction) error {
	h := in.HTTP
	if err := only(in, h.Status == 0 && h.Headers == nil && h.Event == "" && h.ID == "" && h.Retry == "", "other fields"); err != nil {
		return err
	}
	switch end := in.Ending.End; end {
	case EndError:
		if s.answered {
			return fmt.Errorf("close %q for stream %d, which has a response", end, h.Stream)
		}
	case EndSession:
	case EndEOF, EndDropped, EndClient:
		if !s.sse {
			return fmt.Errorf("close %q for stream %d, which has no event-stream response", end, h.Stream)
		}
	default:
		return fmt.Errorf("close with end %q, want eof, dropped, client, session or error", end)
	}
	s.closed = true
	return nil
}

// done checks that every stream was answered and every event stream
// closed; it returns the offending stream's request.
func (sc *streamCheck) done() (int, error) {
	keys := make([]int, 0, len(sc.streams))
	for k := range sc.streams {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := sc.streams[k]
		switch {
		case !s.answered && !s.closed:
			return s.req, fmt.Errorf("request of stream %d has no response and no close line", k)
		case s.sse && !s.closed:
			return s.req, fmt.Errorf("event stream %d has no close line", k)
		}
	}
	return 0, nil
}

// IsSSE reports whether h declares a text/event-stream body.
func IsSSE(h http.Header) bool {
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return ct == "text/event-stream"
}
