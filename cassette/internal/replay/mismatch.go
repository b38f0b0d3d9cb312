package replay

import (
	"github.com/looprig/mcp/cassette/internal/errs"
	"net/http"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/jsondiff"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A live message that matched no recorded one is explained against the
// nearest recorded message like it. The explanation is the
// *errs.Mismatch a player answers it with. The recorded call it stood
// for is returned too: the decider replaces that call's answer.

// mismatch explains why a live message matched no unserved recorded client
// line, against the nearest one. live is the message, canonical and
// redacted. kind is its kind and key its match key.
//
// It also returns the recorded call the live one stood for, else -1. That
// is the nearest recorded message, if the live message is a call and the
// nearest an unserved call of the same method. Replay replaces that call's
// answer (see scheduler.replaceAnswer), so that nothing waits for it.
func (p *Player) mismatch(s *scheduler, kind byte, key, live []byte) (*errs.Mismatch, int) {
	info, _ := format.ScanMessage(live)
	e := &errs.Mismatch{Cassette: p.c.File, Method: info.Method}
	if kind == format.MsgResponse {
		e.Method = p.requestMethod(info.ID)
	}
	nearest, stoodFor := -1, -1
	if cands := p.index[string(key)]; len(cands) > 0 {
		nearest, e.Reason = int(cands[len(cands)-1]), "already served: a recorded message is served at most once"
	}
	next := "none (end of cassette)"
	if int(s.firstOpen) < len(p.pl.steps) {
		next = p.describe(int(s.firstOpen))
	}
	for _, i := range p.pl.clients[s.openAt:] {
		if nearest >= 0 {
			break
		}
		if m, _ := format.ScanMessage(p.canon[i]); !s.served[i] && p.canon[i] != nil && m.Kind == kind && m.Method == info.Method {
			nearest = int(i)
			if kind == format.MsgCall {
				stoodFor = nearest
			}
			e.Reason = "differs from the nearest unserved recorded message like it; the next recorded client message is " + next
			if i == s.firstOpen {
				e.Reason = "differs from the next recorded message"
			}
		}
	}
	switch {
	case nearest >= 0:
	case int(s.firstOpen) < len(p.pl.steps):
		nearest, e.Reason = int(s.firstOpen), "no unserved recorded message is like it; the next recorded client message is "+next
	default:
		e.Reason = "the cassette has no more client messages"
	}
	var want []byte
	if nearest >= 0 {
		e.Position = p.c.Line(nearest)
		if c := p.canon[nearest]; c != nil {
			m, _ := format.ScanMessage(c)
			want = p.mt.key(m.Kind, c)[1:]
		}
	}
	if live != nil {
		e.Diff = diff(want, key[1:])
	}
	return e, stoodFor
}

// requestMethod returns the method of the recorded server request with id,
// which a client response answers.
func (p *Player) requestMethod(id string) string {
	for j := range p.canon {
		if p.canon[j] != nil && format.Side(&p.c.Interactions[j]) == format.FromServer {
			if q, _ := format.ScanMessage(p.canon[j]); q.Kind == format.MsgCall && q.ID == id {
				return q.Method
			}
		}
	}
	return ""
}

// httpMismatch explains why live matched nothing, against the nearest
// unserved recorded request. It also returns the recorded request the live
// one stood for (a call of the same method), else -1. Replay replaces that
// request's answer.
func (p *Player) httpMismatch(s *scheduler, live *liveReq) (*errs.Mismatch, int) {
	e := &errs.Mismatch{Cassette: p.c.File, Method: "HTTP " + live.method}
	liveMethod := ""
	if r, ok := live.msg.(*jsonrpc.Request); ok {
		e.Method, liveMethod = r.Method, r.Method
	}
	nearest, stoodFor := -1, -1
	if cands := p.index[live.key]; len(cands) > 0 {
		nearest, e.Reason = int(cands[len(cands)-1]), "already served: a recorded request is served at most once"
	}
	isCall := false
	if r, ok := live.msg.(*jsonrpc.Request); ok && r.IsCall() {
		isCall = true
	}
	for _, i := range p.pl.clients[s.openAt:] {
		if nearest >= 0 {
			break
		}
		if in := &p.c.Interactions[i]; !s.served[i] && in.HTTP.Method == live.method && p.Method(int(i)) == liveMethod {
			nearest, e.Reason = int(i), "differs from the nearest unserved recorded request like it"
			if isCall && p.canon[i] != nil {
				if m, _ := format.ScanMessage(p.canon[i]); m.Kind == format.MsgCall {
					stoodFor = nearest
				}
			}
		}
	}
	switch {
	case nearest >= 0:
	case int(s.firstOpen) < len(p.pl.steps):
		nearest = int(s.firstOpen)
		e.Reason = "no unserved recorded request is like it; the next is " + p.describe(nearest)
	default:
		e.Reason = "the cassette has no more requests"
	}
	var want []byte
	if nearest >= 0 {
		e.Position = p.c.Line(nearest)
		in := &p.c.Interactions[nearest]
		want = shape(in.HTTP.Method, in.HTTP.URL, in.HTTP.Headers, p.canon[nearest], in.Text, p.mt)
	}
	e.Diff = diff(want, shape(live.method, live.url, live.headers, live.body, string(live.body), p.mt))
	return e, stoodFor
}

// shape is the comparable form of a request, for a mismatch's diff.
func shape(method, url string, h http.Header, canon []byte, text string, mt *Matcher) []byte {
	m := map[string]any{"method": method, "url": url}
	for k, vs := range h {
		if ck := http.CanonicalHeaderKey(k); strings.HasPrefix(ck, "Mcp-") || ck == "Last-Event-Id" {
			m[ck] = strings.Join(vs, ", ")
		}
	}
	if canon != nil {
		if info, err := format.ScanMessage(canon); err == nil {
			if t, err := format.DecodeTree(mt.key(info.Kind, canon)[1:]); err == nil {
				m["message"] = t
			}
		}
	} else if text != "" {
		m["text"] = text
	}
	return format.EncodeTree(m)
}

// diff shows how a live message differs from a recorded one. It is a
// unified line diff (-recorded +live) of their indented JSON, the same
// text every time. Both are canonical JSON (nil for none).
func diff(recorded, live []byte) string {
	return jsondiff.Bytes("recorded", recorded, "live", live)
}
