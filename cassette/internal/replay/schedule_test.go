package replay

import (
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
)

var updateSchedule = flag.Bool("update-schedule", false, "rewrite the want sections of testdata/schedule and testdata/decide")

// TestSchedule runs the scheduler's transcripts in testdata/schedule. Each
// is a txtar file with four parts:
//
//   - a prose comment saying what it shows;
//   - a "transcript": a cassette in shorthand, one line of the file per line;
//   - a "script" of what the live client does;
//   - "want": what the scheduler let out after each step.
//
// -update-schedule rewrites "want".
//
// Transcript lines, message level (transport inprocess):
//
//	client call ID TOOL      a tools/call request
//	client notify METHOD     a notification
//	client cancel ID         notifications/cancelled of request ID
//	client answer ID         the client's answer to server request ID
//	client poll ID TASK      a tasks/get of task TASK (update: a tasks/update)
//	server answer ID         the server's answer to call ID
//	server state ID STATUS   the server's answer to poll ID: its task's status
//	server notify METHOD     a server notification
//	server call ID METHOD    a server request
//	end HOW [pending ID...]  the session's end (eof, error, client)
//
// and HTTP level (transport streamablehttp), S a stream number:
//
//	request S POST call ID TOOL | POST poll ID TASK | POST notify METHOD | POST answer ID | GET [last=EID] | DELETE
//	response S sse | json [answer ID] | empty
//	event S [id=EID] answer ID | state ID STATUS | notify METHOD | call ID METHOD | prime
//	close S HOW
//	end client
//
// Script commands:
//
//	send ...   the live client sends what a client transcript line describes,
//	           its call ids its own: "send call 7 a" matches "client call 2 a"
//	expire     every awaited line is past the bound
//
// After each, the harness plays the adapters' part. At the message level,
// the reader takes what next releases. At the HTTP level, one reader per
// served stream reads its lines in order while they are ready. A line
// awaited and not ready is held: an answer, or the ending a served call
// died with. "expire" fails the held lines that are bounded.
//
// Beside what is delivered, "want" says "served N" for a client line a
// live message matched. "mismatch (nearest line N)" is a live message that
// matched none. "answer replaced N" follows it when the mismatch replaced
// the answer of the recorded call N it stood for.
func TestSchedule(t *testing.T) {
	runTranscripts(t, "schedule", "schedule", func(sections map[string]string) (string, error) {
		return runSchedule(sections["transcript"], sections["script"])
	})
}

// runSchedule builds the transcript's cassette and plays the script.
func runSchedule(transcript, script string) (string, error) {
	c, err := shorthand(transcript)
	if err != nil {
		return "", err
	}
	p, err := newPlayer(c, &Config{Errors: testErrors})
	if err != nil {
		return "", err
	}
	h := &harness{p: p, s: newScheduler(p.pl), read: map[int]int{}, held: map[int]bool{}}
	var out strings.Builder
	for _, cmd := range lines(script) {
		fmt.Fprintf(&out, "> %s\n", cmd)
		h.out = &out
		f := strings.Fields(cmd)
		switch f[0] {
		case "send":
			key, err := h.liveKey(f[1:])
			if err != nil {
				return "", fmt.Errorf("%s: %v", cmd, err)
			}
			i, ok := h.s.match(p.index[key])
			restored := false
			if !ok {
				i, ok = h.s.matchReplaced(p.index[key])
				restored = ok
			}
			if !ok {
				in, _ := shorthandLine(f[1:], h.http())
				h.mismatch(key, in.Message)
				continue
			}
			h.s.serve(i)
			fmt.Fprintf(&out, "served %d\n", c.Line(i))
			if restored {
				fmt.Fprintf(&out, "(the line a mismatch stood for)\n")
			}
			if st := &p.pl.steps[i]; st.client && !h.http() && p.c.Interactions[i].Kind == format.KindMessage {
				if a := h.s.awaits(i); a >= 0 {
					h.held[a] = true
				} else if m, _ := format.ScanMessage(p.canon[i]); m.Kind == format.MsgCall && !h.s.verdict(i) {
					fmt.Fprintf(&out, "no answer for %d\n", c.Line(i))
				}
			}
		case "expire":
			for _, i := range h.awaited() {
				if p.pl.steps[i].after < 0 && h.http() {
					continue // the standalone stream waits as long as it is read
				}
				if waited, ok := h.s.expire(i); ok {
					ls := make([]string, len(waited))
					for k, w := range waited {
						ls[k] = strconv.Itoa(c.Line(w))
					}
					fmt.Fprintf(&out, "expired %d (waited for %s)\n", c.Line(i), cmpOr(strings.Join(ls, " "), "held answers"))
					delete(h.held, i)
				}
			}
		default:
			return "", fmt.Errorf("unknown command %q", cmd)
		}
		h.drain()
	}
	return out.String(), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// A harness plays the adapters' part over a scheduler.
type harness struct {
	p    *Player
	s    *scheduler
	out  *strings.Builder
	read map[int]int  // HTTP: stream → how many of its lines were read
	held map[int]bool // message level: answers awaited
}

func (h *harness) http() bool { return h.p.streams != nil }

// mismatch reports a live message (live, of match key key) that matched
// no unserved line. It replaces the answer of the recorded call the message
// stood for, as the message level's adapter does.
func (h *harness) mismatch(key string, live []byte) {
	merr, stoodFor := h.p.mismatch(h.s, key[0], []byte(key), live)
	fmt.Fprintf(h.out, "mismatch (nearest line %d)\n", merr.Position)
	if stoodFor >= 0 {
		h.s.replaceAnswer(stoodFor)
		fmt.Fprintf(h.out, "answer replaced %d\n", h.p.c.Line(stoodFor))
	}
}

// drain delivers what is ready, as the adapters' readers would.
func (h *harness) drain() {
	if !h.http() {
		for {
			i, ok := h.s.next()
			if !ok {
				return
			}
			delete(h.held, i)
			fmt.Fprintf(h.out, "deliver %d\n", h.p.c.Line(i))
		}
	}
	for progress := true; progress; {
		progress = false
		for _, stream := range h.streamsServed() {
			sl := h.p.streams[stream]
			ls := sl.Lines()
			for h.read[stream] < len(ls) && h.s.ready(ls[h.read[stream]]) {
				if l := ls[h.read[stream]]; !h.s.failed[l] { // a failed line's reader got the error
					fmt.Fprintf(h.out, "stream %d: %d\n", stream, h.p.c.Line(l))
				}
				h.read[stream]++
				progress = true
			}
		}
	}
}

// streamsServed returns the streams whose requests were served, in order.
func (h *harness) streamsServed() []int {
	var out []int
	for stream, sl := range h.p.streams {
		if h.s.served[sl.Req] {
			out = append(out, stream)
		}
	}
	slices.Sort(out)
	return out
}

// awaited returns the lines a reader waits for and that are not ready.
func (h *harness) awaited() []int {
	var out []int
	if !h.http() {
		for i := range h.held {
			if !h.s.ready(i) && !h.s.delivered[i] {
				out = append(out, i)
			}
		}
	} else {
		for _, stream := range h.streamsServed() {
			ls := h.p.streams[stream].Lines()
			if k := h.read[stream]; k < len(ls) && !h.s.ready(ls[k]) {
				out = append(out, ls[k])
			}
		}
	}
	slices.Sort(out)
	return out
}

// liveKey returns the match key of a live message in shorthand.
func (h *harness) liveKey(f []string) (string, error) {
	in, err := shorthandLine(f, h.http())
	if err != nil {
		return "", err
	}
	var key []byte
	if in.Message != nil {
		m, err := format.ScanMessage(in.Message)
		if err != nil {
			return "", err
		}
		key = h.p.mt.key(m.Kind, in.Message)
	}
	if !h.http() {
		return string(key), nil
	}
	return httpKey(in.HTTP.Method, in.HTTP.URL, in.HTTP.Headers, key, in.Text), nil
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// shorthand builds a cassette from a transcript in shorthand.
func shorthand(transcript string) (*format.Cassette, error) {
	ls := lines(transcript)
	isHTTP := false
	for _, l := range ls {
		if f := strings.Fields(l); f[0] == "request" {
			isHTTP = true
		}
	}
	c := &format.Cassette{File: "transcript", Header: format.Header{Format: format.FormatName, Version: format.Version, Transport: "inprocess", Protocol: "2025-11-25", Server: "s"}}
	if isHTTP {
		c.Header.Transport = "streamablehttp"
	}
	for _, l := range ls {
		in, err := shorthandLine(strings.Fields(l), isHTTP)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", l, err)
		}
		c.Interactions = append(c.Interactions, in)
	}
	return c, nil
}

// shorthandLine builds one line, or a live message (a client line without
// its side, for "send").
func shorthandLine(f []string, isHTTP bool) (format.Interaction, error) {
	bad := fmt.Errorf("cannot read %q", strings.Join(f, " "))
	if len(f) == 0 {
		return format.Interaction{}, bad
	}
	msg := func(f []string) (json []byte, rest []string, ok bool) {
		switch {
		case len(f) >= 3 && f[0] == "call" && strings.Contains(f[2], "/"):
			return []byte(fmt.Sprintf(`{"id":%s,"jsonrpc":"2.0","method":%q}`, f[1], f[2])), f[3:], true
		case len(f) >= 3 && f[0] == "call":
			return []byte(fmt.Sprintf(`{"id":%s,"jsonrpc":"2.0","method":"tools/call","params":{"name":%q}}`, f[1], f[2])), f[3:], true
		case len(f) >= 2 && f[0] == "cancel":
			return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, f[1])), f[2:], true
		case len(f) >= 2 && f[0] == "notify":
			return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, f[1])), f[2:], true
		case len(f) >= 3 && (f[0] == "poll" || f[0] == "update"):
			method := map[string]string{"poll": "tasks/get", "update": "tasks/update"}[f[0]]
			return []byte(fmt.Sprintf(`{"id":%s,"jsonrpc":"2.0","method":%q,"params":{"taskId":%q}}`, f[1], method, f[2])), f[3:], true
		case len(f) >= 3 && f[0] == "state":
			return []byte(fmt.Sprintf(`{"id":%s,"jsonrpc":"2.0","result":{"lastUpdatedAt":%q,"status":%q,"taskId":"t"}}`, f[1], f[1], f[2])), f[3:], true
		case len(f) >= 2 && f[0] == "answer":
			return []byte(fmt.Sprintf(`{"id":%s,"jsonrpc":"2.0","result":{}}`, f[1])), f[2:], true
		}
		return nil, f, false
	}
	if !isHTTP {
		switch f[0] {
		case "client", "server":
			m, _, ok := msg(f[1:])
			if !ok {
				return format.Interaction{}, bad
			}
			return format.Interaction{Kind: format.KindMessage, From: f[0], Message: m}, nil
		case "end":
			e := &format.Ending{End: f[1]}
			for _, id := range f[2:] {
				if id != "pending" {
					e.Pending = append(e.Pending, []byte(id))
				}
			}
			return format.Interaction{Kind: format.KindClose, Ending: e}, nil
		}
		// A live message: "send call 7 a".
		m, _, ok := msg(f)
		if !ok {
			return format.Interaction{}, bad
		}
		return format.Interaction{Kind: format.KindMessage, From: format.FromClient, Message: m}, nil
	}
	if f[0] == "end" {
		return format.Interaction{Kind: format.KindClose, Ending: &format.Ending{End: f[1]}}, nil
	}
	if f[0] != "request" && f[0] != "response" && f[0] != "event" && f[0] != "close" {
		f = append([]string{"request", "0"}, f...) // a live request: "send POST call 7 a"
	}
	if len(f) < 3 {
		return format.Interaction{}, bad
	}
	stream, err := strconv.Atoi(f[1])
	if err != nil {
		return format.Interaction{}, bad
	}
	in := format.Interaction{Kind: f[0], HTTP: &format.HTTP{Stream: stream}}
	rest := f[2:]
	switch f[0] {
	case "request":
		in.HTTP.Method, in.HTTP.URL = rest[0], "/mcp"
		rest = rest[1:]
		if len(rest) > 0 && strings.HasPrefix(rest[0], "last=") {
			in.HTTP.Headers = http.Header{"Last-Event-Id": {strings.TrimPrefix(rest[0], "last=")}}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			m, _, ok := msg(rest)
			if !ok {
				return format.Interaction{}, bad
			}
			in.Message = m
		}
	case "response":
		switch rest[0] {
		case "sse":
			in.HTTP.Status, in.HTTP.Headers = 200, http.Header{"Content-Type": {"text/event-stream"}}
		case "json":
			in.HTTP.Status, in.HTTP.Headers = 200, http.Header{"Content-Type": {"application/json"}}
			if len(rest) > 1 {
				m, _, ok := msg(rest[1:])
				if !ok {
					return format.Interaction{}, bad
				}
				in.Message = m
			}
		case "empty":
			in.HTTP.Status = 202
		default:
			return format.Interaction{}, bad
		}
	case "event":
		if strings.HasPrefix(rest[0], "id=") {
			in.HTTP.ID = strings.TrimPrefix(rest[0], "id=")
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "prime" {
			in.HTTP.Event = "prime"
			break
		}
		in.HTTP.Event = "message"
		m, _, ok := msg(rest)
		if !ok {
			return format.Interaction{}, bad
		}
		in.Message = m
	case "close":
		in.HTTP = &format.HTTP{Stream: stream}
		in.Ending = &format.Ending{End: rest[0]}
	}
	return in, nil
}

// FuzzSchedule builds transcripts from arbitrary bytes (message level and
// HTTP). It serves their client lines in an arbitrary order, expiring at
// arbitrary points. The scheduler must not panic. It must deliver each
// server line at most once, and never an answer before its call. When the
// client lines are served in recorded order, it must let every server line
// out.
func FuzzSchedule(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, []byte{1, 0, 2})
	f.Add([]byte{8, 9, 10, 11, 12, 13, 8, 9}, []byte{0, 255, 1})
	f.Fuzz(func(t *testing.T, ops, order []byte) {
		c := fuzzTranscript(ops)
		p, err := newPlayer(c, &Config{Errors: testErrors})
		if err != nil {
			return // not a valid transcript: analyse's business
		}
		inOrder := len(order) == 0
		s := newScheduler(p.pl)
		delivered := map[int]bool{}
		take := func() {
			for {
				i, ok := s.next()
				if !ok {
					break
				}
				if delivered[i] {
					t.Fatalf("line %d delivered twice", c.Line(i))
				}
				delivered[i] = true
				if st := &p.pl.steps[i]; st.answer && !s.served[st.after] {
					t.Fatalf("answer at line %d delivered before its call", c.Line(i))
				}
			}
		}
		clients := slices.Clone(p.pl.clients)
		for k, b := range order {
			if len(clients) == 0 {
				break
			}
			if b == 255 {
				for i := range p.pl.steps {
					if p.pl.steps[i].server {
						s.expire(i)
					}
				}
				continue
			}
			j := int(b) % len(clients)
			if k%2 == 0 {
				j = 0 // mostly in order, so that long transcripts get far
			}
			s.serve(int(clients[j]))
			clients = slices.Delete(clients, j, j+1)
			take()
		}
		if !inOrder {
			return
		}
		for _, i := range clients {
			s.serve(int(i))
			take()
		}
		for i := range p.pl.steps {
			if st := &p.pl.steps[i]; st.server && !s.ready(i) {
				t.Fatalf("every client line served in order, yet line %d is not ready:\n%s", c.Line(i), fuzzDump(c))
			}
		}
	})
}

// fuzzTranscript builds a transcript from ops, each byte one line.
func fuzzTranscript(ops []byte) *format.Cassette {
	isHTTP := len(ops) > 0 && ops[0]%2 == 1
	var b strings.Builder
	nextID, stream := 1, 0
	var open []int // calls without an answer yet
	var streams []int
	for _, op := range ops {
		switch k := op % 8; {
		case !isHTTP && k <= 2:
			fmt.Fprintf(&b, "client call %d t%d\n", nextID, op%5)
			open = append(open, nextID)
			nextID++
		case !isHTTP && k <= 4 && len(open) > 0:
			j := int(op/8) % len(open)
			fmt.Fprintf(&b, "server answer %d\n", open[j])
			open = slices.Delete(open, j, j+1)
		case !isHTTP && k == 5:
			fmt.Fprintf(&b, "client notify n%d\n", op%3)
		case !isHTTP:
			fmt.Fprintf(&b, "server notify m%d\n", op%3)
		case k <= 2:
			stream++
			fmt.Fprintf(&b, "request %d POST call %d t%d\nresponse %d sse\n", stream, nextID, op%5, stream)
			open, streams = append(open, nextID), append(streams, stream)
			nextID++
		case k <= 5 && len(open) > 0:
			j := int(op/8) % len(open)
			fmt.Fprintf(&b, "event %d answer %d\nclose %d eof\n", streams[j], open[j], streams[j])
			open, streams = slices.Delete(open, j, j+1), slices.Delete(streams, j, j+1)
		default:
			stream++
			fmt.Fprintf(&b, "request %d POST notify n%d\nresponse %d empty\n", stream, op%3, stream)
		}
	}
	for k, id := range open {
		if isHTTP {
			fmt.Fprintf(&b, "event %d answer %d\nclose %d eof\n", streams[k], id, streams[k])
		} else {
			fmt.Fprintf(&b, "server answer %d\n", id)
		}
	}
	c, err := shorthand(b.String())
	if err != nil {
		panic(err)
	}
	return c
}

func fuzzDump(c *format.Cassette) string {
	data, _ := c.Marshal()
	return string(data)
}
