package cassette

import (
	"github.com/looprig/mcp/cassette/internal/redact"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A player is what replay needs of one cassette, computed once from its
// plain data: the scheduler's plan, every line's message in canonical form,
// and the match keys of the client lines.
type player struct {
	c       *Cassette
	o       *Options
	mt      *matcher
	pl      *plan
	canon   [][]byte           // each line's message, canonical; nil without one
	index   map[string][]int32 // match key → the client lines with it, in order
	streams map[int]*streamLines
	faults  *faults
}

// newPlayer checks c as Parse does and indexes it. HTTP hooks
// (BeforeResponseReplayHook) run later, as each response is served.
func newPlayer(c *Cassette, o *Options) (*player, error) {
	infos, err := analyse(c)
	if err != nil {
		return nil, err
	}
	pl, streams := buildPlan(c, infos)
	pl.refused = recoveredRefusals(c, infos)
	fs, err := planFaults(c, infos, o)
	if err != nil {
		return nil, err
	}
	p := &player{c: c, o: o, mt: newMatcher(o), pl: pl, canon: make([][]byte, len(infos)), index: map[string][]int32{}, streams: streams, faults: fs}
	for i := range infos {
		p.canon[i] = infos[i].canon
	}
	for _, i := range pl.clients {
		k := p.recordedKey(int(i), infos[i].msg.kind)
		p.index[k] = append(p.index[k], i)
	}
	collapsePolls(pl, infos, p.index)
	if err := fs.checkPolls(c, infos, pl); err != nil {
		return nil, err
	}
	return p, nil
}

// cancelFor returns the recorded client line a live message m stands for
// when m is a notifications/cancelled naming a call the live session made
// (liveID: served recorded call line → its live id): the first unserved
// recorded cancellation of that call, found by the call and not by the
// number, which live ids need not share with the recording. named is false
// when m names no such call (it is matched by its key, as any message is).
func (p *player) cancelFor(s *scheduler, liveID map[int]jsonrpc.ID, m jsonrpc.Message) (i int, ok, named bool) {
	r, isReq := m.(*jsonrpc.Request)
	if !isReq || r.IsCall() || r.Method != "notifications/cancelled" || len(p.pl.cancels) == 0 {
		return 0, false, false
	}
	id := cancelledID(r.Params)
	for line, live := range liveID {
		if liveIDKey(live) == id {
			m, err := scanMessage(p.canon[line])
			if err != nil {
				return 0, false, false
			}
			i, ok = s.match(p.pl.cancels[m.id])
			return i, ok, true
		}
	}
	return 0, false, false
}

// recordedKey returns the match key of client line i.
func (p *player) recordedKey(i int, kind byte) string {
	in := &p.c.Interactions[i]
	var body []byte
	if p.canon[i] != nil {
		body = p.mt.key(kind, p.canon[i])
	}
	if in.Kind == KindMessage {
		return string(body)
	}
	h := in.HTTP
	return httpKey(h.Method, h.URL, h.Headers, body, in.Text)
}

// httpKey is the match key of an HTTP request: its method, URL and Mcp-*
// headers (Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-…) and Last-Event-ID, placeholders spelled alike, and its
// body's key (a message's, or its text).
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

func cloneInteractions(ins []Interaction) []Interaction {
	out := slices.Clone(ins)
	for i := range out {
		if h := out[i].HTTP; h != nil {
			cp := *h
			cp.Headers = h.Headers.Clone()
			out[i].HTTP = &cp
		}
	}
	return out
}

// describe names recorded client line i for an error.
func (p *player) describe(i int) string {
	in := &p.c.Interactions[i]
	s := ""
	if in.HTTP != nil {
		s = in.HTTP.Method + " "
	}
	if m := p.method(i); m != "" {
		s += m + " "
	}
	return s + "at line " + strconv.Itoa(p.c.Line(i))
}

// method returns the method of line i's message, or of the request a
// response answers; "" for none.
func (p *player) method(i int) string {
	if p.canon[i] == nil {
		return ""
	}
	m, _ := scanMessage(p.canon[i])
	if m.kind == kindResponse {
		for j := range p.canon {
			if p.canon[j] != nil && j != i {
				if q, _ := scanMessage(p.canon[j]); q.kind == kindCall && q.id == m.id && side(&p.c.Interactions[j]) != side(&p.c.Interactions[i]) {
					return q.method
				}
			}
		}
	}
	return m.method
}

// describeAll names the recorded client lines in is.
func (p *player) describeAll(is []int) string {
	if len(is) == 0 {
		return "answers recorded before it that are themselves held"
	}
	s := make([]string, len(is))
	for k, i := range is {
		s[k] = p.describe(i)
	}
	return strings.Join(s, ", ")
}
