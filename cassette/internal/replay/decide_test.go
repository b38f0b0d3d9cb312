package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecide runs the decider's transcripts in testdata/decide: what
// replay decides, faults included, for each event a player sees. Each is
// a txtar file: a prose comment saying what it shows, a "transcript" (a
// cassette in the shorthand of TestSchedule; a first line "protocol REV"
// names its revision), "faults" (one fault a line, in format.ParseFault's form),
// a "script" of what the live client does, and "want": each decision.
// -update-schedule rewrites "want".
//
// Script commands: "send ..." (a live client message or request, as in
// TestSchedule), the decision printed as "serve LINE", "refuse (nearest
// LINE)", "accept", "status CODE", "end", "break LINE", "resume stream S
// at event K"; "expire" (every bounded hold past its bound: "expire LINE:
// refuse LINE"). After each, the harness plays the players' part: the
// message level's reader takes what next releases ("deliver LINE", "delay
// LINE D", "end at LINE"); at the HTTP level one reader per served (or
// resumed) stream asks respond, due, release and streamEnd in turn while
// its lines are ready ("stream S: ..."). At the end, "unused LINE" for
// each client line never served, "(excused)" when a fault explains it.
func TestDecide(t *testing.T) {
	runTranscripts(t, "decide", "decisions", func(sections map[string]string) (string, error) {
		return runDecide(sections["transcript"], sections["faults"], sections["script"])
	})
}

// A decideHarness plays the players' part over a decider.
type decideHarness struct {
	p       *Player
	d       *decider
	out     *strings.Builder
	readers []*reader // HTTP: one per served or resumed stream, in order
	over    bool      // message level: the session ended
}

// A reader reads one HTTP stream as playBody (and RoundTrip, for its
// first line) does.
type reader struct {
	stream  int
	sl      *format.StreamLines
	started bool // its first line is out (or it is a resumed stream)
	next    int  // the next of sl.events
	done    bool
}

func runDecide(transcript, faultText, script string) (string, error) {
	protocol := ""
	if ls := lines(transcript); len(ls) > 0 && strings.HasPrefix(ls[0], "protocol ") {
		protocol = strings.TrimPrefix(ls[0], "protocol ")
		transcript = strings.Replace(transcript, ls[0], "", 1)
	}
	c, err := shorthand(transcript)
	if err != nil {
		return "", err
	}
	if protocol != "" {
		c.Header.Protocol = protocol
	}
	o := &Config{Wait: 5 * time.Second, Errors: testErrors} // cassette.DefaultWait, which the want sections name
	for _, l := range lines(faultText) {
		f, err := format.ParseFault(l)
		if err != nil {
			return "", err
		}
		o.Faults = append(o.Faults, f)
	}
	p, err := newPlayer(c, o)
	if err != nil {
		return "", err
	}
	h := &decideHarness{p: p, d: newDecider(p)}
	var out strings.Builder
	h.out = &out
	for _, cmd := range lines(script) {
		fmt.Fprintf(&out, "> %s\n", cmd)
		f := strings.Fields(cmd)
		switch f[0] {
		case "send":
			if err := h.send(f[1:]); err != nil {
				return "", fmt.Errorf("%s: %v", cmd, err)
			}
		case "expire":
			h.expire()
		default:
			return "", fmt.Errorf("unknown command %q", cmd)
		}
		h.drain()
	}
	for _, i := range h.d.s.Unused() {
		fmt.Fprintf(&out, "unused %d", c.Line(i))
		if h.d.Excused(i) {
			fmt.Fprint(&out, " (excused)")
		}
		fmt.Fprintln(&out)
	}
	return out.String(), nil
}

func (h *decideHarness) line(i int) int { return h.p.c.Line(i) }

// send hands the decider a live message in shorthand and prints what it
// decides.
func (h *decideHarness) send(f []string) error {
	if h.over {
		fmt.Fprintln(h.out, "closed")
		return nil
	}
	m, err := h.liveMsg(f)
	if err != nil {
		return err
	}
	dec := h.d.client(m)
	switch dec.act {
	case actServe:
		fmt.Fprintf(h.out, "serve %d", h.line(dec.line))
		if dec.merr != nil {
			fmt.Fprintf(h.out, ": refuse: %s", dec.merr.Reason)
		}
		fmt.Fprintln(h.out)
		if h.d.http {
			h.start(h.p.c.Interactions[dec.line].HTTP.Stream, false, 0)
		}
	case actRefuse:
		fmt.Fprint(h.out, "refuse")
		if dec.merr.Position > 0 {
			fmt.Fprintf(h.out, " (nearest %d)", dec.merr.Position)
		}
		fmt.Fprintf(h.out, ": %s\n", dec.merr.Reason)
	case actStatus:
		fmt.Fprintf(h.out, "status %d\n", dec.status)
	case actEnd:
		fmt.Fprintln(h.out, "end")
		h.over = !h.d.http
	case actBreak:
		fmt.Fprintf(h.out, "break %d\n", h.line(dec.line))
	case actResume:
		stream := h.p.c.Interactions[dec.sl.Events[0]].HTTP.Stream
		fmt.Fprintf(h.out, "resume stream %d at event %d\n", stream, dec.line)
		h.start(stream, true, dec.line)
	default:
		fmt.Fprintln(h.out, dec.act)
	}
	return nil
}

func (h *decideHarness) start(stream int, resumed bool, next int) {
	h.readers = append(h.readers, &reader{stream: stream, sl: h.p.streams[stream], started: resumed, next: next})
}

// liveMsg builds a live message from shorthand, as a player reads it.
func (h *decideHarness) liveMsg(f []string) (*liveMsg, error) {
	in, err := shorthandLine(f, h.d.http)
	if err != nil {
		return nil, err
	}
	m := &liveMsg{}
	var key []byte
	if in.Message != nil {
		if m.msg, err = jsonrpc.DecodeMessage(in.Message); err != nil {
			return nil, err
		}
		if m.canon, err = format.CanonicalMessage(m.msg); err != nil {
			return nil, err
		}
		m.kind = liveKind(m.msg)
		key = h.p.mt.key(m.kind, m.canon)
	}
	if !h.d.http {
		m.key = string(key)
		return m, nil
	}
	hd := in.HTTP.Headers
	if hd == nil {
		hd = http.Header{}
	}
	m.key = httpKey(in.HTTP.Method, in.HTTP.URL, hd, key, in.Text)
	m.req = &liveReq{method: in.HTTP.Method, url: in.HTTP.URL, headers: hd, lastEventID: hd.Get("Last-Event-ID"),
		msg: m.msg, body: m.canon, key: m.key}
	return m, nil
}

// drain lets out what is ready, as the players' readers would.
func (h *decideHarness) drain() {
	if !h.d.http {
		for !h.over {
			dec, ok := h.d.next()
			if !ok {
				return
			}
			switch dec.act {
			case actEnd:
				fmt.Fprintf(h.out, "end at %d\n", h.line(dec.line))
				h.over = true
			case actDelay:
				fmt.Fprintf(h.out, "delay %d %v\n", h.line(dec.line), dec.delay)
			default:
				fmt.Fprintf(h.out, "deliver %d%s\n", h.line(dec.line), h.failed(dec.line))
				h.over = h.p.pl.steps[dec.line].terminal
			}
		}
		return
	}
	for progress := true; progress; {
		progress = false
		for _, r := range h.readers {
			for !r.done && h.step(r) {
				progress = true
			}
		}
	}
}

// step takes reader r one line further, if its line is ready; it reports
// whether it did.
func (h *decideHarness) step(r *reader) bool {
	say := func(format string, args ...any) {
		fmt.Fprintf(h.out, "stream %d: "+format+"\n", append([]any{r.stream}, args...)...)
	}
	if !r.started {
		first := r.sl.First()
		if !h.d.s.ready(first) {
			return false
		}
		r.started = true
		dec := h.d.respond(r.sl)
		h.say(say, dec)
		r.done = dec.act != actDeliver && dec.act != actDelay || r.sl.Resp < 0 || !format.IsSSE(h.p.c.Interactions[r.sl.Resp].HTTP.Headers)
		return true
	}
	if r.next < len(r.sl.Events) {
		i := r.sl.Events[r.next]
		dec := h.d.due(i, r.sl, r.next)
		if dec.act == actAwait {
			if !h.d.s.ready(i) {
				return false
			}
			dec = h.d.release(i)
		} else {
			r.done = true
		}
		h.say(say, dec)
		r.next++
		return true
	}
	dec := h.d.streamEnd(r.sl, false)
	if dec.act == actAwait {
		if !h.d.s.ready(r.sl.Close) {
			return false
		}
		dec = h.d.streamEnd(r.sl, true)
	}
	h.say(say, dec)
	r.done = true
	return true
}

func (h *decideHarness) say(say func(string, ...any), dec decision) {
	switch dec.act {
	case actDelay:
		say("delay %d %v", h.line(dec.line), dec.delay)
	case actEnd:
		say("end at %d (%v)", h.line(dec.line), dec.err)
	case actBreak:
		say("break at %d (%v)", h.line(dec.line), dec.err)
	default:
		say("%v %d%s", dec.act, h.line(dec.line), h.failed(dec.line))
	}
}

// failed tells, for a line going out, the status format.FaultFail gave its task.
func (h *decideHarness) failed(i int) string {
	if i < 0 || !h.p.faults.fail[i] {
		return ""
	}
	m, _ := format.ScanMessage(h.p.answer(i))
	var r struct {
		Status string `json:"status"`
	}
	json.Unmarshal(m.Result, &r)
	return " (task " + r.Status + ")"
}

// expire fails every bounded hold, as the players' timers would.
func (h *decideHarness) expire() {
	var held []int
	if !h.d.http {
		held = h.d.bounds()
	} else {
		for _, r := range h.readers {
			if i := h.awaiting(r); i >= 0 && h.d.bounded(i) {
				held = append(held, i)
			}
		}
	}
	for _, i := range held {
		lines, merrs, ok := h.d.expire(i)
		if !ok {
			continue
		}
		ls := make([]string, len(lines))
		for k, l := range lines {
			ls[k] = strconv.Itoa(h.line(l))
		}
		fmt.Fprintf(h.out, "expire %d: refuse %s", h.line(i), strings.Join(ls, " "))
		if len(merrs) > 0 {
			fmt.Fprintf(h.out, ": %s", merrs[0].Reason)
		}
		fmt.Fprintln(h.out)
		for _, r := range h.readers {
			if h.awaiting(r) == i {
				r.done = true // its reader got the error
			}
		}
	}
}

// awaiting returns the line reader r waits for, or -1.
func (h *decideHarness) awaiting(r *reader) int {
	switch {
	case r.done:
		return -1
	case !r.started:
		return r.sl.First()
	case r.next < len(r.sl.Events):
		return r.sl.Events[r.next]
	}
	return r.sl.Close
}

// TestPollFaultsRefused: a drop of a JSON answer that is not a poll's, a
// fail of an answer that is not a poll's, and either on a poll the plan
// collapsed into the one before it (whose answer is never served) are
// refused at once with transport.ErrBadFault.
func TestPollFaultsRefused(t *testing.T) {
	c, err := shorthand(`
request 1 POST call 1 build
response 1 json answer 1
request 2 POST poll 2 t
response 2 json state 2 working
request 3 POST poll 3 t
response 3 json state 3 working
request 4 POST poll 4 t
response 4 json state 4 completed
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"drop@tools/call=build", "fail@tools/call=build", "fail@tasks/get#2", "drop@tasks/get#2"} {
		f, err := format.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := newPlayer(c, &Config{Faults: []format.Fault{f}, Errors: testErrors}); !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("%s: %v, want transport.ErrBadFault", s, err)
		}
	}
	for _, s := range []string{"fail@tasks/get#1", "fail@tasks/get#3", "drop@tasks/get#3"} {
		f, _ := format.ParseFault(s)
		if _, err := newPlayer(c, &Config{Faults: []format.Fault{f}, Errors: testErrors}); err != nil {
			t.Errorf("%s: %v, want it taken", s, err)
		}
	}
}
