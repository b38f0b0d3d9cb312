package replay

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/internal/canonjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Matching: which recorded client line a live client message is. This file
// holds all of it: the match keys of messages and HTTP requests, and the
// index of the recorded client lines by key. It also holds the order in
// which a live message's candidates are tried.

// match returns the recorded client line live message m is. That is a
// cancellation of a call the live session made, found by the call; or a
// request a fault answered, sent again (retry). Else it is the first
// unserved recorded line with m's key, or the first whose answer a
// mismatch replaced.
func (d *decider) match(m *liveMsg) (i int, ok, retry bool) {
	i, ok, named := d.p.cancelFor(d.s, d.liveID, m.msg)
	if !named {
		// A poll whose answer a fault lost comes first: polled again, it
		// is answered with the state it lost.
		i, ok = d.retry(m.key, d.lost)
		retry = ok
	}
	if !ok && !named {
		i, ok = d.s.match(d.p.index[m.key])
	}
	if !ok {
		i, ok = d.retry(m.key, d.statused)
		retry = ok
	}
	if !ok && !named {
		i, ok = d.s.matchReplaced(d.p.index[m.key])
	}
	return i, ok, retry
}

// retry returns the recorded request a fault answered that a live request
// with key sends again. by holds format.FaultStatus's or format.FaultDrop's
// lines. The request gets the recording's answer.
func (d *decider) retry(key string, by map[int]bool) (int, bool) {
	for _, j := range d.p.index[key] {
		if i := int(j); by[i] && d.faulted[i] {
			delete(d.faulted, i)
			d.s.restoreAnswer(i)
			return i, true
		}
	}
	return 0, false
}

// match returns the first unserved line of candidates, which are client
// lines in recorded order.
func (s *scheduler) match(cands []int32) (int, bool) {
	for _, i := range cands {
		if !s.served[i] {
			return int(i), true
		}
	}
	return 0, false
}

// matchReplaced returns the first line of candidates whose answer was
// replaced. Candidates are client lines with a live message's key, in
// recorded order. The live message is that line after all, and its server
// lines may go out (restoreAnswer).
func (s *scheduler) matchReplaced(cands []int32) (int, bool) {
	for _, i := range cands {
		if s.replaced[i] {
			s.restoreAnswer(int(i))
			return int(i), true
		}
	}
	return 0, false
}

// indexClients indexes the recorded client lines by match key.
func (p *Player) indexClients(infos []format.LineInfo) {
	for _, i := range p.pl.clients {
		k := p.recordedKey(int(i), infos[i].Msg.Kind)
		p.index[k] = append(p.index[k], i)
	}
}

// cancelFor returns the recorded client line a live message m stands for,
// when m is a notifications/cancelled naming a call the live session made.
// liveID maps a served recorded call line to its live id. The line is the
// first unserved recorded cancellation of that call. It is found by the
// call, not by the number: live ids need not be the recording's. named is
// false when m names no such call. Then m is matched by its key, as any
// message is.
func (p *Player) cancelFor(s *scheduler, liveID map[int]jsonrpc.ID, m jsonrpc.Message) (i int, ok, named bool) {
	r, isReq := m.(*jsonrpc.Request)
	if !isReq || r.IsCall() || r.Method != "notifications/cancelled" || len(p.pl.cancels) == 0 {
		return 0, false, false
	}
	id := format.CancelledID(r.Params)
	for line, live := range liveID {
		if format.LiveIDKey(live) == id {
			m, err := format.ScanMessage(p.canon[line])
			if err != nil {
				return 0, false, false
			}
			i, ok = s.match(p.pl.cancels[m.ID])
			return i, ok, true
		}
	}
	return 0, false, false
}

// recordedKey returns the match key of client line i.
func (p *Player) recordedKey(i int, kind byte) string {
	in := &p.c.Interactions[i]
	var body []byte
	if p.canon[i] != nil {
		body = p.mt.key(kind, p.canon[i])
	}
	if in.Kind == format.KindMessage {
		return string(body)
	}
	h := in.HTTP
	return httpKey(h.Method, h.URL, h.Headers, body, in.Text)
}

// httpKey is the match key of an HTTP request. It holds the request's
// method, URL, Mcp-* headers and Last-Event-ID, placeholders spelled
// alike. The Mcp-* headers are Mcp-Session-Id, Mcp-Protocol-Version,
// Mcp-Method, Mcp-Name and Mcp-Param-…. It ends with the body's key (a
// message's, or its text).
func httpKey(method, url string, h http.Header, body []byte, text string) string {
	var b strings.Builder
	b.WriteString(method)
	b.WriteByte(0)
	b.WriteString(redact.NormaliseString(url))
	keys := make([]string, 0, len(h))
	for k := range h {
		if ck := http.CanonicalHeaderKey(k); strings.HasPrefix(ck, "Mcp-") || ck == "Last-Event-Id" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(http.CanonicalHeaderKey(k))
		for _, v := range h[k] {
			b.WriteByte(1)
			b.WriteString(redact.NormaliseString(v))
		}
	}
	b.WriteByte(0)
	if body != nil {
		b.Write(body)
	} else {
		b.WriteString(strconv.Quote(redact.NormaliseString(text)))
	}
	return b.String()
}

// A Matcher turns messages into match keys: two messages match when their
// keys are equal. A key is the message's kind and its canonical JSON, with
// every placeholder spelled alike. The JSON leaves out "jsonrpc", the id of
// a request (ids are rewritten), and the ignored paths (defaultIgnore and
// Config.IgnorePaths).
type Matcher struct {
	ignore []format.Path
}

// traceContextPaths are where trace context rides (W3C Trace Context and
// Baggage keys in "_meta", as the MCP community convention has it). They
// are volatile in every cassette: a traced session replays with other
// trace ids.
var traceContextPaths = []string{
	"params._meta.traceparent", "params._meta.tracestate", "params._meta.baggage",
	"result._meta.traceparent", "result._meta.tracestate", "result._meta.baggage",
}

// defaultIgnore are the paths matching always ignores. They are
// per-request metadata and the client's identity in initialize. The
// metadata holds progress tokens and trace context. In 2026-07-28 the
// client's identity, capabilities and revision ride in "_meta" too. So a
// cassette recorded by another version of this library, or another
// client, still replays.
var defaultIgnore = append([]string{"params._meta", "result._meta", "params.clientInfo"}, traceContextPaths...)

// NewMatcher returns the matcher for the cassettes cs: it ignores
// defaultIgnore, ignore and the paths each of cs declares volatile.
func NewMatcher(ignore []string, cs ...*format.Cassette) *Matcher {
	ps := append(append([]string(nil), defaultIgnore...), ignore...)
	for _, c := range cs {
		for _, p := range c.Header.Volatile {
			if _, err := format.ParsePath(p); err == nil { // checkHeader refuses the others
				ps = append(ps, p)
			}
		}
	}
	return &Matcher{ignore: format.ParsePaths(format.SortedSet(ps))}
}

var (
	pathJSONRPC = format.Path{"jsonrpc"}
	pathID      = format.Path{"id"}
)

// key returns the match key of the canonical message canon of kind.
func (mt *Matcher) key(kind byte, canon []byte) []byte {
	ps := make([]format.Path, 0, len(mt.ignore)+2)
	ps = append(ps, pathJSONRPC)
	if kind != format.MsgResponse {
		ps = append(ps, pathID)
	}
	ps = append(ps, mt.ignore...)
	return redact.Normalise(filter([]byte{kind}, canon, ps))
}

// filter appends the canonical value v to dst without the values at ps,
// each relative to v. An object member is left out; an array element
// becomes null.
func filter(dst, v []byte, ps []format.Path) []byte {
	if len(ps) == 0 || len(v) == 0 || v[0] != '{' && v[0] != '[' {
		return append(dst, v...)
	}
	sub := make([]format.Path, 0, len(ps))
	// matching returns the tails of the paths whose head matches key, and
	// whether one of them ends there.
	matching := func(key []byte, element bool) ([]format.Path, bool) {
		sub = sub[:0]
		ends := false
		for _, p := range ps {
			if p[0] == "*" || !element && p[0] == string(key) {
				if len(p) == 1 {
					ends = true
				} else {
					sub = append(sub, p[1:])
				}
			}
		}
		return sub, ends
	}
	if v[0] == '{' {
		dst = append(dst, '{')
		first := true
		format.Members(v, func(key, val []byte) error {
			tails, ends := matching(key, false)
			if ends {
				return nil
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = canonjson.AppendString(dst, string(key))
			dst = append(dst, ':')
			dst = filter(dst, val, append([]format.Path(nil), tails...))
			return nil
		})
		return append(dst, '}')
	}
	dst = append(dst, '[')
	for i, first := 1, true; i < len(v)-1; {
		end, err := format.SkipValue(v, i)
		if err != nil {
			break
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		tails, ends := matching(nil, true)
		if ends {
			dst = append(dst, "null"...)
		} else {
			dst = filter(dst, v[i:end], append([]format.Path(nil), tails...))
		}
		i = end + 1
	}
	return append(dst, ']')
}

// Strip returns raw, a canonical message, without the paths mt ignores.
func (mt *Matcher) Strip(raw []byte) []byte { return filter(nil, raw, mt.ignore) }
