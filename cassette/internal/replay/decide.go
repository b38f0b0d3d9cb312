package replay

import (
	"encoding/json"
	"fmt"
	"github.com/looprig/mcp/cassette/internal/errs"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The decider takes every decision of one replayed session, faults
// included. It sits above the scheduler (schedule.go) and is as pure: no
// locks, no timers, no I/O. Each event a player sees is one call that
// returns a decision. The events are:
//
//   - a live client message (client);
//   - a server line due at the message level (next);
//   - a server line due on an HTTP stream (due, respond, streamEnd);
//   - a hold past Config.Wait (expire).
//
// The players are play_conn.go (an mcp.Connection) and play_http.go (an
// http.RoundTripper). They hold their lock around the call, then only do
// I/O: read and write, hold, signal, build responses. So faults, retries
// and give-ups behave alike at both levels, where the level allows. Its
// tests are the transcripts in testdata/decide.

// An act is what a player does with an event.
type act uint8

const (
	actServe   act = iota + 1 // serve recorded client line `line` (HTTP: then its stream)
	actAccept                 // take the message and answer nothing of it (a cancellation of a call given up)
	actRefuse                 // the message matched nothing: refuse it with merr
	actStatus                 // answer the request with HTTP status `status` (a fault)
	actEnd                    // the session is over (a fault), or the stream ends with err
	actBreak                  // the server has the request, then the connection breaks with err
	actResume                 // HTTP: answer with the rest of stream sl, from its event `line`
	actDeliver                // server line `line` goes out
	actDelay                  // server line `line` goes out, `delay` later (a fault)
	actDrop                   // the stream breaks before server line `line` (a fault, or as recorded)
	actAwait                  // wait until line `line` is ready, then ask again
	actWait                   // wait for the client to end it (its context, or closing the body)
)

var actNames = [...]string{actServe: "serve", actAccept: "accept", actRefuse: "refuse", actStatus: "status",
	actEnd: "end", actBreak: "break", actResume: "resume", actDeliver: "deliver", actDelay: "delay",
	actDrop: "drop", actAwait: "await", actWait: "wait"}

func (a act) String() string {
	if int(a) < len(actNames) && actNames[a] != "" {
		return actNames[a]
	}
	return "act(" + strconv.Itoa(int(a)) + ")"
}

// A decision is what the decider says of one event.
type decision struct {
	act     act
	line    int // the recorded line it acts on; resume: the index in sl.events to resume from; -1 for none
	status  int // status: the HTTP status
	delay   time.Duration
	merr    *errs.Mismatch      // refuse: why; serve: the error the call is answered with instead (nothing will answer it)
	err     error               // end, break: the error the session or stream ends with
	written bool                // break: the request went out whole before the connection broke
	sl      *format.StreamLines // resume: the stream
}

// A liveMsg is a live client message as the decider reads it.
type liveMsg struct {
	msg   jsonrpc.Message // nil for an HTTP request without a message body
	kind  byte            // liveKind of msg
	key   string          // its match key
	canon []byte          // message level: the message, canonical and redacted
	req   *liveReq        // HTTP: the request; nil at the message level
}

// A decider is one session's decisions over a scheduler and the planned
// faults.
type decider struct {
	p      *Player
	s      *scheduler
	http   bool
	liveID map[int]jsonrpc.ID // served recorded call → the live request's id
	held   map[int]bool       // message level: answers (and endings) served calls wait for, not yet released

	// Injected faults (Config.Faults).
	ended    bool         // format.FaultEnd ended the session
	statused map[int]bool // format.FaultStatus lines answered with their status (answer replaced)
	lost     map[int]bool // polls whose JSON answer format.FaultDrop lost (answer replaced)
	faulted  map[int]bool // of those, the ones the client has not sent again (then restored)
	dropped  *dropped     // format.FaultDrop: the stream that broke, until resumed
	failed   []int        // format.FaultFail: the answers served as their task failed
}

// dropped is a stream format.FaultDrop broke.
type dropped struct {
	sl      *format.StreamLines
	next    int // the index in sl.events of the event it broke before
	resumed bool
}

func newDecider(p *Player) *decider {
	return &decider{p: p, s: newScheduler(p.pl), http: p.streams != nil, liveID: map[int]jsonrpc.ID{},
		held: map[int]bool{}, statused: map[int]bool{}, lost: map[int]bool{}, faulted: map[int]bool{}}
}

// client decides what becomes of live client message m.
func (d *decider) client(m *liveMsg) decision {
	if d.ended && d.http {
		return decision{act: actEnd, line: -1} // the server forgot the session: 404
	}
	if m.req != nil {
		if dec, ok := d.resume(m.req); ok {
			return dec
		}
	}
	i, ok, retry := d.match(m)
	if !ok {
		if d.givesUp(m.msg) {
			return decision{act: actAccept, line: -1}
		}
		return d.refuse(m)
	}
	return d.serve(i, m, retry)
}

// refuse explains why m matched nothing. The mismatch replaces the answer
// of the recorded call m stood for (see scheduler.replaceAnswer).
func (d *decider) refuse(m *liveMsg) decision {
	var merr *errs.Mismatch
	var stoodFor int
	if m.req != nil {
		merr, stoodFor = d.p.httpMismatch(d.s, m.req)
	} else {
		merr, stoodFor = d.p.mismatch(d.s, m.kind, []byte(m.key), m.canon)
	}
	if stoodFor >= 0 {
		d.s.replaceAnswer(stoodFor)
	}
	return decision{act: actRefuse, line: -1, merr: merr}
}

// serve decides what becomes of client line i, which live message m
// matched (retry: it was served already, and a fault answered it).
func (d *decider) serve(i int, m *liveMsg, retry bool) decision {
	fs := d.p.faults
	if i >= fs.end {
		// format.FaultEnd: the server is gone before it reads the message (HTTP:
		// it forgot the session, 404).
		d.ended = true
		return decision{act: actEnd, line: i, err: d.p.faultEnding()}
	}
	if d.http {
		if first := d.p.streams[d.p.c.Interactions[i].HTTP.Stream].First(); first >= fs.end {
			// format.FaultEnd between the request and its response: the server
			// has the request (and may have run it), then the session
			// ends with no response, as when a server dies mid-call.
			d.s.serve(i)
			d.ended = true
			return decision{act: actBreak, line: i, err: d.p.faultEnding(), written: true}
		}
		if code := fs.status[i]; code != 0 && !d.statused[i] {
			// format.FaultStatus, once. The status replaces the recorded
			// answer, so nothing waits for it. Sent again, the request gets
			// the recorded answer.
			d.statused[i], d.faulted[i] = true, true
			d.s.replaceAnswer(i)
			return decision{act: actStatus, line: i, status: code}
		}
		if first := d.p.streams[d.p.c.Interactions[i].HTTP.Stream].First(); fs.drop[first] && !d.lost[i] {
			// format.FaultDrop of a poll's JSON answer, once: the connection
			// breaks once the poll is written, and its reply is lost. The
			// break replaces the recorded answer, as for format.FaultStatus.
			// Polled again, the poll is answered as recorded.
			d.lost[i], d.faulted[i] = true, true
			d.s.replaceAnswer(i)
			return decision{act: actBreak, line: i, err: d.p.faultError(first, "the connection broke before the answer"), written: true}
		}
	}
	if !retry {
		d.s.serve(i)
	}
	dec := decision{act: actServe, line: i}
	if r, ok := m.msg.(*jsonrpc.Request); ok && r.IsCall() {
		d.liveID[i] = r.ID
		if !d.http {
			dec.merr = d.await(i)
		}
	}
	return dec
}

// await notes what message level call i, just served, waits for. When
// nothing will answer the call, it returns the error the call is answered
// with.
func (d *decider) await(i int) *errs.Mismatch {
	p := d.p
	switch h := d.s.awaits(i); {
	case !d.s.verdict(i):
		return &errs.Mismatch{Cassette: p.c.File, Position: p.c.Line(i), Method: p.Method(i),
			Reason: "the recorded request has no answer and no ending after it: nothing will answer it"}
	case h >= 0 && d.s.failed[h]:
		return &errs.Mismatch{Cassette: p.c.File, Position: p.c.Line(i), Method: p.Method(i),
			Reason: "the session's recorded end, which it waits for, was held past the bound: nothing will answer it"}
	case h >= 0 && !d.s.ready(h):
		d.held[h] = true
	}
	return nil
}

// givesUp reports whether m cancels a served call that the recording shows
// the client gave up. At the message level, the client cancelled it or
// closed the session with it pending. At HTTP, it stopped reading its
// stream, or the session ended. The go-sdk sends the cancellation as the
// call returns, and the recording may or may not have caught it.
func (d *decider) givesUp(m jsonrpc.Message) bool {
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.IsCall() || r.Method != "notifications/cancelled" {
		return false
	}
	id := format.CancelledID(r.Params)
	for line, live := range d.liveID {
		if format.LiveIDKey(live) != id {
			continue
		}
		if !d.http {
			if d.p.pl.steps[line].giveUp {
				return true
			}
			continue
		}
		if sl := d.p.streams[d.p.c.Interactions[line].HTTP.Stream]; sl.Close >= 0 {
			end := d.p.c.Interactions[sl.Close].Ending.End
			return end == format.EndClient || end == format.EndSession
		}
	}
	return false
}

// resume decides a GET that resumes the stream format.FaultDrop broke. It
// answers as a server with an event store would on 2025-11-25 and earlier:
// the rest of the stream after the event whose id it names. ok is false
// for any other request.
func (d *decider) resume(r *liveReq) (dec decision, ok bool) {
	dr := d.dropped
	if dr == nil || dr.resumed || r.method != http.MethodGet || r.lastEventID == "" {
		return decision{}, false
	}
	if d.p.c.Header.Protocol >= protocol.Revision20260728 {
		return decision{act: actStatus, line: -1, status: http.StatusMethodNotAllowed}, true // no resumption in that revision
	}
	for k := dr.next - 1; k >= 0; k-- {
		if d.p.c.Interactions[dr.sl.Events[k]].HTTP.ID == r.lastEventID {
			dr.resumed = true
			return decision{act: actResume, line: k + 1, sl: dr.sl}, true
		}
	}
	return decision{}, false
}

// next decides the message level's next server line. The first the
// scheduler releases goes out (later, for format.FaultDelay), or
// format.FaultEnd ends the session there. ok is false when none is ready.
func (d *decider) next() (dec decision, ok bool) {
	i, ok := d.s.next()
	if !ok {
		return decision{}, false
	}
	if i >= d.p.faults.end {
		d.ended = true
		return decision{act: actEnd, line: i, err: d.p.faultEnding()}, true
	}
	return d.release(i), true
}

// release decides server line i, ready: it goes out, Delay later for
// format.FaultDelay; for format.FaultFail, as its task failed (player.answer).
func (d *decider) release(i int) decision {
	if d.p.faults.fail[i] && !slices.Contains(d.failed, i) {
		d.failed = append(d.failed, i)
	}
	if dl := d.p.faults.delay[i]; dl > 0 {
		return decision{act: actDelay, line: i, delay: dl}
	}
	return decision{act: actDeliver, line: i}
}

// due decides event line i of HTTP stream sl, the reader's next (the
// next-th of sl.events). format.FaultEnd ends the stream with the session,
// or format.FaultDrop breaks it. Else the line awaits its turn, then goes
// out as release says.
func (d *decider) due(i int, sl *format.StreamLines, next int) decision {
	switch {
	case d.ended || i >= d.p.faults.end:
		d.ended = true
		return decision{act: actEnd, line: i, err: io.EOF} // the server ended the stream with the session
	case d.p.faults.drop[i] && d.dropped == nil:
		d.dropped = &dropped{sl: sl, next: next}
		return decision{act: actDrop, line: i, err: io.ErrUnexpectedEOF}
	}
	return decision{act: actAwait, line: i} // then release
}

// respond decides the first line of served HTTP stream sl, awaited. Its
// response goes out (later, for format.FaultDelay). Without a response,
// the request fails as recorded, or waits for the client.
func (d *decider) respond(sl *format.StreamLines) decision {
	first := sl.First()
	if first != sl.Close {
		return d.release(first)
	}
	// The recorded request got no response: it failed, or the session
	// ended first.
	if e := d.p.c.Interactions[sl.Close].Ending; e.End == format.EndError {
		return decision{act: actBreak, line: first, err: d.p.endingError(sl.Close), written: e.Written}
	}
	return decision{act: actWait, line: first}
}

// streamEnd decides how HTTP stream sl ends once its events are out. It
// ends with the session if format.FaultEnd cut it. Else its close line is
// awaited, and then (awaited) it ends as recorded.
func (d *decider) streamEnd(sl *format.StreamLines, awaited bool) decision {
	switch {
	case sl.Close >= d.p.faults.end:
		return decision{act: actEnd, line: sl.Close, err: io.EOF}
	case !awaited:
		return decision{act: actAwait, line: sl.Close}
	}
	switch d.p.c.Interactions[sl.Close].Ending.End {
	case format.EndEOF:
		return decision{act: actEnd, line: sl.Close, err: io.EOF}
	case format.EndDropped:
		return decision{act: actDrop, line: sl.Close, err: io.ErrUnexpectedEOF}
	}
	// The client ended it, or the session did: wait for the same.
	return decision{act: actWait, line: sl.Close}
}

// bounded reports whether HTTP line i, not ready, is held for requests the
// live client has not made: the hold Config.Wait bounds. A line is not
// bounded while the client owes the server an answer. Nor is a line that
// keeps its place, such as the standalone stream's: it waits as long as
// the client reads.
func (d *decider) bounded(i int) bool {
	return !d.s.ready(i) && d.p.pl.steps[i].after >= 0 && d.s.heldForRequests(i)
}

// bounds returns the message level's held lines whose bound runs: those
// held for client requests the live client has not made. The bound does
// not run while the client owes the server an answer it is working on.
// bounds also forgets the held lines released.
func (d *decider) bounds() []int {
	var run []int
	for a := range d.held {
		switch {
		case d.s.ready(a):
			delete(d.held, a)
		case d.s.heldForRequests(a):
			run = append(run, a)
		}
	}
	slices.Sort(run)
	return run
}

// expire fails held line h, past its bound. Each served request that
// waits for it is answered with the returned *errs.Mismatch (by
// line), which names what it waited for. ok is false if h was ready after
// all.
func (d *decider) expire(h int) (lines []int, merrs []*errs.Mismatch, ok bool) {
	delete(d.held, h)
	waited, ok := d.s.expire(h)
	if !ok {
		return nil, nil, false
	}
	p := d.p
	if d.http {
		q := p.streams[p.c.Interactions[h].HTTP.Stream].Req
		return []int{q}, []*errs.Mismatch{{Cassette: p.c.File, Position: p.c.Line(q), Method: p.methodOf(q),
			Reason: fmt.Sprintf("held %v for recorded requests the live client did not make: %s", p.o.Wait, p.describeAll(waited))}}, true
	}
	reason := fmt.Sprintf("held %v for recorded messages the live client did not send: %s", p.o.Wait, p.describeAll(waited))
	for _, call := range d.waiting(h) {
		lines = append(lines, call)
		merrs = append(merrs, &errs.Mismatch{Cassette: p.c.File, Position: p.c.Line(call), Method: p.Method(call), Reason: reason})
	}
	return lines, merrs, true
}

// waiting returns the served calls that wait for server line h, in
// recorded order.
func (d *decider) waiting(h int) []int {
	var calls []int
	for call := range d.liveID {
		if d.s.awaits(call) == h {
			calls = append(calls, call)
		}
	}
	slices.Sort(calls)
	return calls
}

// Excused reports whether client line i was made but a fault answered it,
// or could not be made because a fault ended the session before it.
func (d *decider) Excused(i int) bool {
	if d.statused[i] || d.ended && i >= d.p.faults.end {
		return true
	}
	// A failed task's later requests.
	task := d.p.taskOf(i)
	for _, f := range d.failed {
		if q := int(d.p.pl.steps[f].after); i > f && task != "" && task == d.p.taskOf(q) {
			return true
		}
	}
	return false
}

// taskOf returns the task client line i polls, updates or cancels; "" for
// any other line.
func (p *Player) taskOf(i int) string {
	if p.canon[i] == nil || !p.pl.steps[i].client {
		return ""
	}
	m, err := format.ScanMessage(p.canon[i])
	if err != nil || m.Kind != format.MsgCall || !strings.HasPrefix(m.Method, "tasks/") {
		return ""
	}
	var params struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(m.Params, &params) != nil {
		return ""
	}
	return params.TaskID
}

// answer returns server line i's message, canonical: as recorded, or, for
// format.FaultFail, the poll's answer with its task failed in place of the
// recorded state.
func (p *Player) answer(i int) []byte {
	canon := p.canon[i]
	if !p.faults.fail[i] {
		return canon
	}
	info, err := format.ScanMessage(canon)
	var r map[string]any
	if err != nil || json.Unmarshal(info.Result, &r) != nil || r == nil {
		return canon
	}
	text := p.faultError(i, "the task failed").Error()
	delete(r, "result")
	delete(r, "inputRequests")
	r["status"], r["statusMessage"] = protocol.TaskFailed, text
	r["error"] = map[string]any{"code": jsonrpc.CodeInternalError, "message": text}
	result, err := json.Marshal(r)
	if err != nil {
		return canon
	}
	resp := info.ToMessage().(*jsonrpc.Response)
	resp.Result = result
	if data, err := format.CanonicalMessage(resp); err == nil {
		return data
	}
	return canon
}

// faultError is the error of the drop or fail fault at line i: what
// happened there instead of the recording.
func (p *Player) faultError(i int, what string) error {
	return p.o.Errors.Recorded(&errs.Recorded{Cassette: p.c.File, Line: p.c.Line(i), Text: "injected fault " + p.faults.text[i] + ": " + what, Class: transport.ClassTransport})
}
