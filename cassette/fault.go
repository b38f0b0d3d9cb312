package cassette

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/transport"
)

// A FaultKind names a fault replay injects into a recorded session.
type FaultKind = format.FaultKind

// The faults replay can inject. Each acts on one message of the cassette,
// named by its number (Message.Number, the #N of mcprig inspect), so that
// one recorded real session exercises a client's failure paths. A
// recorded tools/call is still never answered twice.
const (
	// FaultDrop (Streamable HTTP) breaks the response stream that carries
	// message N, a server message on an event stream, just before its
	// event: the events before it went out. On 2025-11-25 and earlier, a
	// client that resumes the stream (GET with the Last-Event-ID of an
	// event it got) is answered with the rest of the stream, from message
	// N, as a server with an event store would; message N is served once.
	// Where the recording allows no resumption (2026-07-28, or no event id
	// before the cut), the reply is lost, as it would be live.
	//
	// Message N may also be the answer to a task's poll (tasks/get) that
	// the server sent as a JSON body, not on a stream: the connection
	// breaks once the poll is written, before its answer, and the poll's
	// reply is lost (its outcome unknown to the transport). Polling a task
	// is a read, safe to repeat: the same poll sent again is answered with
	// the recorded state, once.
	FaultDrop = format.FaultDrop
	// FaultDelay holds message N, a server message, Delay longer than
	// replay would: messages released meanwhile go out first.
	FaultDelay = format.FaultDelay
	// FaultEnd ends the session at message N: neither it nor anything
	// recorded after it is served. At the message level the connection
	// breaks (a *RecordedError of class transport: the calls in flight have an
	// unknown outcome, as when a server dies mid-call); at the HTTP level
	// open streams end, a request whose response headers N precedes gets
	// no response (its connection breaks once it is written), and every
	// request from then on is answered 404 Not Found, as for a session the
	// server forgot. Either way the call that N answers fails with its
	// outcome unknown: streamablehttp reports a resumption refused 404 as
	// the call's dropped stream.
	FaultEnd = format.FaultEnd
	// FaultStatus (Streamable HTTP) answers the request carrying message
	// N, a client message, with the HTTP status Status (401 with a Bearer
	// invalid_token challenge, 403 with insufficient_scope, or 5xx)
	// instead of its recorded answer, once: the recorded request is not
	// served, so a client that sends it again (as it may a listing after
	// re-authorizing) gets the recording's answer.
	FaultStatus = format.FaultStatus
	// FaultFail fails a task (the tasks extension) at one of its recorded
	// states: message N, the answer to a poll (tasks/get), is served as the
	// task failed (status "failed", its error and statusMessage naming the
	// fault) in place of the recorded state, at both levels. The task's
	// later requests (its polls, tasks/update, tasks/cancel) are then not
	// reported unused. fail@tasks/get#K fails it at the answer to the K-th
	// recorded poll. Polling need not match: a poll answered with the same
	// state as the poll before it is never served, that poll answering in
	// its place. So K names the first poll of a state: in a recording
	// whose polls 1 and 2 are both "working", fail@tasks/get (K = 1) fails
	// the task while it works, and fail@tasks/get#2 is refused, the
	// refusal naming the poll to use. The same holds for drop@tasks/get#K.
	FaultFail = format.FaultFail
)

// A Fault is one fault replay injects. It acts on the message numbered
// Message, or, when Method is set, on the request Method names (and the
// answer to it): the Nth request of Method whose name is Name, so that it
// survives a change of revision, which numbers messages otherwise.
//
// Its text form, which ParseFault reads and String writes, is
// KIND@TARGET[:ARG], TARGET being a message number N or a request
// METHOD[=NAME][#NTH]:
//
//	drop@12                          break the stream before message 12
//	delay@13:200ms                   hold message 13 200ms longer
//	end@9                            end the session at message 9
//	status@12:503                    answer the request of message 12 with 503
//	end@tools/call=get_weather#2     the server dies under the second call of get_weather
//	drop@tools/call=lookup           the stream of lookup's first call breaks before its answer
//	delay@resources/read=docs://readme:1s   its answer comes a second late
//	status@tools/list:401            the first tools/list is answered 401
//	fail@tasks/get                   the task fails at its first recorded state
//	drop@tasks/get                   the first poll's reply is lost
//
// A request is named by its method and its name: params.name for
// tools/call and prompts/get, params.uri for resources/read,
// resources/subscribe and resources/unsubscribe, params.ref's name or uri
// for completion/complete; without =NAME any request of the method
// counts. NTH counts from 1 (the default) the requests of the session in
// order; the continuations of a multi round-trip request (2026-07-28's
// input-required rounds) belong to the request they continue, so that
// "the second call of get_weather" is the same call on both revisions.
// status acts on the request itself; drop, delay and end on its answer
// (the answer to its last round). A NAME holding ':' or '#' is written as
// it is: ARG is after the last ':', and NTH after a last '#' followed by
// digits only (write #1 after a name that ends in '#' and digits).
//
// Its fields: Kind; Message, the message it acts on (Message.Number, from
// 1; zero when Method is set); Method, Name and Nth, the request it acts
// on instead (Name empty for any request of Method, Nth from 1, zero
// meaning 1); Delay, how much longer (FaultDelay); Status, 401, 403 or
// 500 to 599 (FaultStatus).
type Fault = format.Fault

// ParseFault reads a fault's text form (see Fault).
func ParseFault(s string) (Fault, error) { return format.ParseFault(s) }

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
func planFaults(c *Cassette, infos []format.LineInfo, o *Options) (*faults, error) {
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
			return &OptionsError{Option: "Faults[" + strconv.Itoa(k) + "]", Value: f.String(), Err: fmt.Errorf("%w: "+format, append([]any{transport.ErrBadFault}, args...)...)}
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
		from := side(in)
		switch f.Kind {
		case FaultDrop:
			if !isHTTP || in.Kind != KindEvent && (in.Kind != KindResponse || !pollAnswer(infos, i)) {
				return nil, bad("message %d is not an event of a Streamable HTTP response stream, nor the JSON answer to a tasks/get", f.Message)
			}
			fs.drop[i], fs.text[i] = true, f.String()
		case FaultFail:
			if from != FromServer || !pollAnswer(infos, i) {
				return nil, bad("message %d is not the answer to a tasks/get", f.Message)
			}
			fs.fail[i], fs.text[i] = true, f.String()
		case FaultDelay:
			if from != FromServer || f.Delay <= 0 {
				return nil, bad("message %d is not a server message, or the delay is not positive", f.Message)
			}
			fs.delay[i] = f.Delay
		case FaultEnd:
			if i < fs.end {
				fs.end, fs.endText = i, f.String()
			}
		case FaultStatus:
			if !isHTTP || in.Kind != KindRequest || !format.FaultStatusOK(f.Status) {
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
func (fs *faults) checkPolls(c *Cassette, infos []format.LineInfo, pl *plan) error {
	for _, head := range slices.Sorted(maps.Keys(pl.polls)) {
		for _, j := range pl.polls[head] {
			a := int(pl.steps[j].answerAt)
			if a < 0 || !fs.fail[a] && !fs.drop[a] {
				continue
			}
			first := int(pl.steps[head].answerAt)
			return &OptionsError{Option: "Faults", Value: fs.text[a], Err: fmt.Errorf(
				"%w: the answer at line %d repeats the state of the poll before it, and is never served: the first poll of that state, tasks/get#%d (message %d, line %d), answers in its place: name it",
				transport.ErrBadFault, c.Line(a), pollNumber(infos, int(head)), messageNumber(infos, first), c.Line(first))}
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

// messageNumber returns line i's message number (Message.Number).
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
// Fault): the request's own for FaultStatus; for the others its answer,
// the answer to its last round.
func requestLine(c *Cassette, infos []format.LineInfo, f Fault) (int, error) {
	nth := max(f.Nth, 1)
	seen := 0
	for i := range infos {
		m := &infos[i].Msg
		if infos[i].Canon == nil || side(&c.Interactions[i]) != FromClient || m.Kind != format.MsgCall || m.Method != f.Method {
			continue
		}
		name, cont := requestName(m.Params)
		if cont || f.Name != "" && name != f.Name {
			continue
		}
		if seen++; seen < nth {
			continue
		}
		if f.Kind == FaultStatus {
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
func lastAnswer(c *Cassette, infos []format.LineInfo, i int, method, name string) (int, error) {
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
			if infos[j].Canon != nil && side(&c.Interactions[j]) == FromClient && m.Kind == format.MsgCall && m.Method == method {
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

// requestName returns what names a request (see Fault) and whether it
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
