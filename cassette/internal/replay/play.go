package replay

import (
	"slices"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
)

// A Player is what replay needs of one cassette, computed once from its
// plain data: the scheduler's plan, every line's message in canonical form,
// and the match keys of the client lines.
type Player struct {
	c       *format.Cassette
	o       *Config
	mt      *Matcher
	pl      *plan
	canon   [][]byte           // each line's message, canonical; nil without one
	index   map[string][]int32 // match key → the client lines with it, in order
	streams map[int]*format.StreamLines
	faults  *faults
}

// NewPlayer plans the replay of c from infos, what format.Analyse learnt
// of c's lines: it does not check c again. HTTP hooks
// (BeforeResponseReplayHook) run later, as each response is served.
func NewPlayer(c *format.Cassette, infos []format.LineInfo, o *Config) (*Player, error) {
	pl, streams := buildPlan(c, infos)
	pl.refused = RecoveredRefusals(c, infos)
	fs, err := planFaults(c, infos, o)
	if err != nil {
		return nil, err
	}
	p := &Player{c: c, o: o, mt: NewMatcher(o.IgnorePaths, c), pl: pl, canon: make([][]byte, len(infos)), index: map[string][]int32{}, streams: streams, faults: fs}
	for i := range infos {
		p.canon[i] = infos[i].Canon
	}
	p.indexClients(infos)
	collapsePolls(pl, infos, p.index)
	if err := fs.checkPolls(c, infos, pl, o.Errors); err != nil {
		return nil, err
	}
	return p, nil
}

func cloneInteractions(ins []format.Interaction) []format.Interaction {
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
func (p *Player) describe(i int) string {
	in := &p.c.Interactions[i]
	s := ""
	if in.HTTP != nil {
		s = in.HTTP.Method + " "
	}
	if m := p.Method(i); m != "" {
		s += m + " "
	}
	return s + "at line " + strconv.Itoa(p.c.Line(i))
}

// Method returns the method of line i's message, or of the request a
// response answers; "" for none.
func (p *Player) Method(i int) string {
	if p.canon[i] == nil {
		return ""
	}
	m, _ := format.ScanMessage(p.canon[i])
	if m.Kind == format.MsgResponse {
		for j := range p.canon {
			if p.canon[j] != nil && j != i {
				if q, _ := format.ScanMessage(p.canon[j]); q.Kind == format.MsgCall && q.ID == m.ID && format.Side(&p.c.Interactions[j]) != format.Side(&p.c.Interactions[i]) {
					return q.Method
				}
			}
		}
	}
	return m.Method
}

// describeAll names the recorded client lines in is.
func (p *Player) describeAll(is []int) string {
	if len(is) == 0 {
		return "answers recorded before it that are themselves held"
	}
	s := make([]string, len(is))
	for k, i := range is {
		s[k] = p.describe(i)
	}
	return strings.Join(s, ", ")
}

// EndpointPath returns the path and query the recording's first request
// went to.
func (p *Player) EndpointPath() string {
	for i := range p.c.Interactions {
		if in := &p.c.Interactions[i]; in.Kind == format.KindRequest {
			return in.HTTP.URL
		}
	}
	return "/"
}

// HasStandalone reports whether the recording opened the standalone stream.
func (p *Player) HasStandalone() bool {
	for i := range p.c.Interactions {
		if format.Standalone(&p.c.Interactions[i]) {
			return true
		}
	}
	return false
}

// Discovers reports whether the recorded client sent server/discover.
func (p *Player) Discovers() bool {
	for _, i := range p.pl.clients {
		if m, err := format.ScanMessage(p.canon[i]); err == nil && p.canon[i] != nil && m.Method == "server/discover" {
			return true
		}
	}
	return false
}

// Cassette returns the cassette p plays.
func (p *Player) Cassette() *format.Cassette { return p.c }

// Canon returns line i's message, canonical; nil without one.
func (p *Player) Canon(i int) []byte { return p.canon[i] }

// Unused returns the client lines of the cassette, before any is served.
func (p *Player) Unused() []int { return newScheduler(p.pl).Unused() }
