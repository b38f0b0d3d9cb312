package cassette

import (
	"slices"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
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
	streams map[int]*format.StreamLines
	faults  *faults
}

// newPlayer checks c as Parse does and indexes it. HTTP hooks
// (BeforeResponseReplayHook) run later, as each response is served.
func newPlayer(c *Cassette, o *Options) (*player, error) {
	infos, err := format.Analyse(c)
	if err != nil {
		return nil, err
	}
	pl, streams := buildPlan(c, infos)
	pl.refused = recoveredRefusals(c, infos)
	fs, err := planFaults(c, infos, o)
	if err != nil {
		return nil, err
	}
	p := &player{c: c, o: o, mt: newMatcher(o, c), pl: pl, canon: make([][]byte, len(infos)), index: map[string][]int32{}, streams: streams, faults: fs}
	for i := range infos {
		p.canon[i] = infos[i].Canon
	}
	p.indexClients(infos)
	collapsePolls(pl, infos, p.index)
	if err := fs.checkPolls(c, infos, pl); err != nil {
		return nil, err
	}
	return p, nil
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
	m, _ := format.ScanMessage(p.canon[i])
	if m.Kind == format.MsgResponse {
		for j := range p.canon {
			if p.canon[j] != nil && j != i {
				if q, _ := format.ScanMessage(p.canon[j]); q.Kind == format.MsgCall && q.ID == m.ID && side(&p.c.Interactions[j]) != side(&p.c.Interactions[i]) {
					return q.Method
				}
			}
		}
	}
	return m.Method
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
