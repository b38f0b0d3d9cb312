package replay

import (
	"encoding/json"
	"fmt"
	"github.com/looprig/mcp/cassette/internal/errs"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/transport"
)

// faults is where a player's faults act, by line.
type faults struct {
	drop    map[int]bool          // event lines before which the stream breaks; JSON answers to polls that are lost
	fail    map[int]bool          // answers to polls served as the task failed
	text    map[int]string        // the drop and fail faults, for errors, by line
	delay   map[int]time.Duration // server lines held longer
	status  map[int]int           // request lines answered with a status
	end     int                   // the line at which the session ends; len(lines) for none
	endText string                // the fault, for errors
}

// planFaults checks o.Faults against c and places them.
func planFaults(c *format.Cassette, infos []format.LineInfo, o *Config) (*faults, error) {
	fs := &faults{drop: map[int]bool{}, fail: map[int]bool{}, text: map[int]string{}, delay: map[int]time.Duration{}, status: map[int]int{}, end: len(c.Interactions)}
	if len(o.Faults) == 0 {
		return fs, nil
	}
	var lines []int // message number - 1 → line index
	for i := range infos {
		if infos[i].Canon != nil {
			lines = append(lines, i)
		}
	}
	isHTTP := c.Kind() == transport.KindStreamableHTTP
	numbers := make(map[int]int, len(lines)) // line index → message number
	for n, i := range lines {
		numbers[i] = n + 1
	}
	for k, f := range o.Faults {
		bad := func(format string, args ...any) error {
			return o.Errors.Options(&errs.Options{Option: "Faults[" + strconv.Itoa(k) + "]", Value: f.String(), Err: fmt.Errorf("%w: "+format, append([]any{transport.ErrBadFault}, args...)...)})
		}
		if f.Method != "" {
			line, err := requestLine(c, infos, f)
			if err != nil {
				return nil, bad("%v", err)
			}
			f.Message = numbers[line]
		}
		if f.Message < 1 || f.Message > len(lines) {
			return nil, bad("the cassette has %d messages", len(lines))
		}
		i := lines[f.Message-1]
		in := &c.Interactions[i]
		from := format.Side(in)
		switch f.Kind {
		case format.FaultDrop:
			if !isHTTP || in.Kind != format.KindEvent && (in.Kind != format.KindResponse || !pollAnswer(infos, i)) {
				return nil, bad("message %d is not an event of a Streamable HTTP response stream, nor the JSON answer to a tasks/get", f.Message)
			}
			fs.drop[i], fs.text[i] = true, f.String()
		case format.FaultFail:
			if from != format.FromServer || !pollAnswer(infos, i) {
				return nil, bad("message %d is not the answer to a tasks/get", f.Message)
			}
			fs.fail[i], fs.text[i] = true, f.String()
		case format.FaultDelay:
			if from != format.FromServer || f.Delay <= 0 {
				return nil, bad("message %d is not a server message, or the delay is not positive", f.Message)
			}
			fs.delay[i] = f.Delay
		case format.FaultEnd:
			if i < fs.end {
				fs.end, fs.endText = i, f.String()
			}
		case format.FaultStatus:
			if !isHTTP || in.Kind != format.KindRequest || !format.FaultStatusOK(f.Status) {
				return nil, bad("message %d is not the body of a Streamable HTTP request, or the status is not 401, 403 or 5xx", f.Message)
			}
			fs.status[i] = f.Status
		default:
			return nil, bad("unknown kind")
		}
	}
	return fs, nil
}

// checkPolls refuses a drop or fail fault on the answer to a poll the
// plan collapsed into the one before it (polls.go): that answer is never
// served, the first poll of its state answering for it. The refusal names
// that first poll, as tasks/get#K and as a message number.
func (fs *faults) checkPolls(c *format.Cassette, infos []format.LineInfo, pl *plan, mk *errs.Errors) error {
	for _, head := range slices.Sorted(maps.Keys(pl.polls)) {
		for _, j := range pl.polls[head] {
			a := int(pl.steps[j].answerAt)
			if a < 0 || !fs.fail[a] && !fs.drop[a] {
				continue
			}
			first := int(pl.steps[head].answerAt)
			return mk.Options(&errs.Options{Option: "Faults", Value: fs.text[a], Err: fmt.Errorf(
				"%w: the answer at line %d repeats the state of the poll before it, and is never served: the first poll of that state, tasks/get#%d (message %d, line %d), answers in its place: name it",
				transport.ErrBadFault, c.Line(a), pollNumber(infos, int(head)), messageNumber(infos, first), c.Line(first))})
		}
	}
	return nil
}

// pollNumber returns K for poll line i, the K-th tasks/get of the session.
func pollNumber(infos []format.LineInfo, i int) int {
	k := 0
	for j := 0; j <= i && j < len(infos); j++ {
		if isPoll(infos[j]) {
			k++
		}
	}
	return k
}

// messageNumber returns line i's message number (format.Message.Number).
func messageNumber(infos []format.LineInfo, i int) int {
	n := 0
	for j := 0; j <= i && j < len(infos); j++ {
		if infos[j].Canon != nil {
			n++
		}
	}
	return n
}

// pollAnswer reports whether line i answers a task's poll (tasks/get).
func pollAnswer(infos []format.LineInfo, i int) bool {
	m := &infos[i].Msg
	q := infos[i].Pair
	return infos[i].Canon != nil && m.Kind == format.MsgResponse && q >= 0 && infos[q].Msg.Method == "tasks/get"
}

// requestLine returns the line a fault addressed by request acts on (see
// format.Fault): the request's own for format.FaultStatus; for the others its answer,
// the answer to its last round.
func requestLine(c *format.Cassette, infos []format.LineInfo, f format.Fault) (int, error) {
	nth := max(f.Nth, 1)
	seen := 0
	for i := range infos {
		m := &infos[i].Msg
		if infos[i].Canon == nil || format.Side(&c.Interactions[i]) != format.FromClient || m.Kind != format.MsgCall || m.Method != f.Method {
			continue
		}
		name, cont := requestName(m.Params)
		if cont || f.Name != "" && name != f.Name {
			continue
		}
		if seen++; seen < nth {
			continue
		}
		if f.Kind == format.FaultStatus {
			return i, nil
		}
		return lastAnswer(c, infos, i, m.Method, name)
	}
	what := f.Method
	if f.Name != "" {
		what += " of " + f.Name
	}
	return 0, fmt.Errorf("the cassette holds %d %s request(s), not %d", seen, what, nth)
}

// lastAnswer returns the line of the answer to request line i's last
// round: while an answer asks for input, the next request of the method
// and name that continues it is the next round.
func lastAnswer(c *format.Cassette, infos []format.LineInfo, i int, method, name string) (int, error) {
	for {
		a := infos[i].Pair
		if a < 0 {
			return 0, fmt.Errorf("the %s request at line %d has no recorded answer", method, c.Line(i))
		}
		if !asksForInput(infos[a].Msg.Result) {
			return a, nil
		}
		next := -1
		for j := a + 1; j < len(infos) && next < 0; j++ {
			m := &infos[j].Msg
			if infos[j].Canon != nil && format.Side(&c.Interactions[j]) == format.FromClient && m.Kind == format.MsgCall && m.Method == method {
				if n, cont := requestName(m.Params); cont && n == name {
					next = j
				}
			}
		}
		if next < 0 {
			return a, nil // the client did not continue it: its last answer is this one
		}
		i = next
	}
}

// requestName returns what names a request (see format.Fault) and whether it
// continues an earlier round (it carries inputResponses).
func requestName(params []byte) (name string, continues bool) {
	var p struct {
		Name           string          `json:"name"`
		URI            string          `json:"uri"`
		InputResponses json.RawMessage `json:"inputResponses"`
		Ref            struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	name = p.Name
	for _, n := range []string{p.URI, p.Ref.Name, p.Ref.URI} {
		if name == "" {
			name = n
		}
	}
	return name, len(p.InputResponses) > 0 && string(p.InputResponses) != "null"
}

// asksForInput reports whether a result is a 2026-07-28 input-required
// result.
func asksForInput(result []byte) bool {
	var r struct {
		ResultType    string          `json:"resultType"`
		InputRequests json.RawMessage `json:"inputRequests"`
	}
	if json.Unmarshal(result, &r) != nil {
		return false
	}
	return r.ResultType == "input_required" || len(r.InputRequests) > 0 && string(r.InputRequests) != "null"
}
