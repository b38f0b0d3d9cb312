package replay

import "slices"

// The scheduler decides, for one replayed session, when each recorded line
// the server sent may be delivered. It follows the rules of the package
// documentation ("Order"). It is pure: no locks, no timers, no I/O. The
// decider (decide.go) drives it and adds the faults. The decider:
//
//   - tells it which recorded client line a live message matched (serve);
//   - asks whether a line may go out (ready);
//   - takes the message level's lines in order (next);
//   - tells it when a line was held past Config.Wait (expire).
//
// Its tests are the transcripts in testdata/schedule.

// A step is what the scheduler knows of one line.
type step struct {
	client    bool  // a client line: a live client message is matched to it
	server    bool  // a server line: it is delivered (or, at HTTP, read) when ready
	skippable bool  // a client line the live client may leave out (a notification, the standalone GET): passed once a later client line is served
	answer    bool  // a server line carrying the answer to a client call: the requests recorded after it are ordered after it
	terminal  bool  // a session's end: delivered once every server line before it was
	immediate bool  // ready once `after` is served, whatever else (the responses of DELETE)
	giveUp    bool  // an unanswered client call the recording shows the client gave up (it cancelled it, or closed the session with it pending)
	optional  bool  // a client line whose absence is not reported as unused: a cancellation, which the go-sdk sends as the call returns, in a race with the session's end
	reply     bool  // a client line answering a server request (sampling, elicitation, roots): what a held line waits for when the live client is still working on it
	after     int32 // a server line attached to a client line: its call, or its stream's request; -1 for a line that keeps its place (a notification, a server request, an ending)
	call      int32 // an answer on another stream than its call's (a resumed stream): the call, which must be served too; -1
	answerAt  int32 // a client call: the line of its answer; -1
	endsAt    int32 // an unanswered client call: the first session ending after it that the server caused; -1
	needs     []int32
}

// A plan is the steps of one cassette, computed once per player.
type plan struct {
	steps   []step
	clients []int32            // the client lines, in order
	answers []int32            // the answer lines, in order
	cancels map[string][]int32 // a recorded call's id key → the client lines cancelling it, in order; nil for none
	polls   map[int32][]int32  // a task's poll → the later polls of the same state, collapsed into it (polls.go); nil for none
	refused []int32            // requests refused 401 or 403 and sent again, passed over (refusals.go)
}

// A scheduler is one session's state over a plan.
type scheduler struct {
	pl        *plan
	served    []bool // client lines a live message matched
	passed    []bool // client lines served, or skippable lines a later client line passed
	failed    []bool // server lines held past the bound: nothing waits for them, and they are not delivered
	replaced  []bool // client lines something else answered (see replaceAnswer), until the client sends them after all
	delivered []bool // message level: server lines handed out

	maxServed   int32 // the last served client line; -1
	passFrom    int   // index in clients: skippable lines before it are passed, when before maxServed
	openAt      int   // index in clients of the first line neither served nor passed
	firstOpen   int32 // its line; len(steps) when none
	ansAt       int   // index in answers of the first answer neither ready nor failed
	firstHeld   int32 // its line; len(steps) when none
	deliverFrom int32 // no undelivered server line before it
	scanLimit   int32 // no server line at or after it can be ready, past firstOpen
}

func newScheduler(pl *plan) *scheduler {
	n := len(pl.steps)
	s := &scheduler{pl: pl, served: make([]bool, n), passed: make([]bool, n), failed: make([]bool, n),
		replaced: make([]bool, n), delivered: make([]bool, n), maxServed: -1}
	s.passOver()
	s.advance()
	return s
}

// serve records that a live client message matched client line i.
func (s *scheduler) serve(i int) {
	s.served[i], s.passed[i] = true, true
	s.maxServed = max(s.maxServed, int32(i))
	if a := s.pl.steps[i].answerAt; a >= 0 {
		s.scanLimit = max(s.scanLimit, a+1)
	}
	s.servePolls(i)
	s.advance()
}

// advance moves the pointers forward after a change.
func (s *scheduler) advance() {
	cl := s.pl.clients
	for s.passFrom < len(cl) && cl[s.passFrom] < s.maxServed {
		if j := cl[s.passFrom]; s.pl.steps[j].skippable {
			s.passed[j] = true
		}
		s.passFrom++
	}
	for s.openAt < len(cl) && s.passed[cl[s.openAt]] {
		s.openAt++
	}
	s.firstOpen = int32(len(s.pl.steps))
	if s.openAt < len(cl) {
		s.firstOpen = cl[s.openAt]
	}
	as := s.pl.answers
	for s.ansAt < len(as) && (s.failed[as[s.ansAt]] || s.attachedReady(as[s.ansAt])) {
		s.ansAt++
	}
	s.firstHeld = int32(len(s.pl.steps))
	if s.ansAt < len(as) {
		s.firstHeld = as[s.ansAt]
	}
}

// ready reports whether server line i may go out. A failed line is ready:
// nothing waits for it.
func (s *scheduler) ready(i int) bool {
	st := &s.pl.steps[i]
	switch {
	case s.failed[i]:
		return true
	case st.after < 0:
		if int32(i) >= s.firstOpen {
			return false
		}
		if st.terminal {
			s.skipDelivered()
			return s.deliverFrom >= int32(i)
		}
		return true
	case st.immediate:
		return s.served[st.after]
	}
	return st.after < s.firstHeld && s.attachedReady(int32(i))
}

// attachedReady is ready for a line attached to a client line, but for the
// answers recorded before that line.
func (s *scheduler) attachedReady(i int32) bool {
	st := &s.pl.steps[i]
	if !s.served[st.after] || st.call >= 0 && !s.served[st.call] {
		return false
	}
	for _, j := range st.needs {
		if !s.passed[j] {
			return false
		}
	}
	return true
}

func (s *scheduler) skipDelivered() {
	steps := s.pl.steps
	for int(s.deliverFrom) < len(steps) && (!steps[s.deliverFrom].server || s.delivered[s.deliverFrom] || s.failed[s.deliverFrom]) {
		s.deliverFrom++
	}
}

// next returns the first server line, in recorded order, that is ready and
// not yet delivered, and marks it delivered (the message level's reader).
func (s *scheduler) next() (int, bool) {
	s.skipDelivered()
	limit := min(max(s.firstOpen, s.scanLimit), int32(len(s.pl.steps)))
	for k := s.deliverFrom; k < limit; k++ {
		if s.pl.steps[k].server && !s.delivered[k] && !s.failed[k] && s.ready(int(k)) {
			s.delivered[k] = true
			return int(k), true
		}
	}
	return 0, false
}

// expire fails server line i, held past the bound: nothing waits for it
// any more, and it is not delivered. It returns the client lines it waited
// for, or ok false if it was ready after all.
func (s *scheduler) expire(i int) (waited []int, ok bool) {
	if s.ready(i) {
		return nil, false
	}
	waited = s.blockers(i)
	s.failed[i] = true
	s.advance()
	return waited, true
}

// blockers returns the unserved client lines server line i waits for.
func (s *scheduler) blockers(i int) []int {
	st := &s.pl.steps[i]
	var out []int
	add := func(j int32) {
		if j >= 0 && !s.passed[j] && !slices.Contains(out, int(j)) {
			out = append(out, int(j))
		}
	}
	if st.after < 0 || st.immediate {
		if st.after >= 0 {
			add(st.after)
		} else if int32(i) >= s.firstOpen {
			add(s.firstOpen)
		}
		return out
	}
	add(st.after)
	add(st.call)
	for _, j := range st.needs {
		add(j)
	}
	if st.after > s.firstHeld {
		// An answer recorded before its request is held: it waits for what
		// that answer waits for.
		h := &s.pl.steps[s.firstHeld]
		add(h.after)
		add(h.call)
		for _, j := range h.needs {
			add(j)
		}
	}
	return out
}

// heldForRequests reports whether server line i, not ready, waits for a
// client message the live client has not sent: the hold that Config.Wait
// bounds. A wait for the client's answer to a server request it was given
// does not count: the client is still working on it.
func (s *scheduler) heldForRequests(i int) bool {
	for _, j := range s.blockers(i) {
		if !s.pl.steps[j].reply {
			return true
		}
	}
	return false
}

// replaceAnswer records that something other than the recording answered
// client line i. A live message stood for it but differed (a mismatch), or
// a fault answered it. The line counts as sent. Its server lines (its
// answer, the lines of its stream) fail: nothing waits for them, and none
// is delivered. The line is still the client's to send (see matchReplaced).
// One changed argument is one mismatch: the recorded call it was compared
// with is answered when it comes.
func (s *scheduler) replaceAnswer(i int) {
	if s.served[i] {
		return
	}
	s.replaced[i] = true
	s.serve(i)
	for k := range s.pl.steps {
		if st := &s.pl.steps[k]; st.server && (st.after == int32(i) || st.call == int32(i)) {
			s.failed[k] = true
		}
	}
	s.advance()
}

// restoreAnswer undoes replaceAnswer for client line i, which the client
// sent again: its server lines may go out after all. The line is one a
// mismatch stood for, or one a fault answered, which the client made again.
func (s *scheduler) restoreAnswer(i int) {
	s.replaced[i] = false
	for k := range s.pl.steps {
		if st := &s.pl.steps[k]; st.server && (st.after == int32(i) || st.call == int32(i)) {
			s.failed[k] = false
		}
	}
	// The pointers past failed lines move back over them.
	s.ansAt, s.deliverFrom = 0, 0
	s.advance()
}

// verdict says what becomes of client call i, just served, that has no
// recorded answer. It waits (true) for the session's end the server
// caused, or for the client, who gave it up. Else nothing will answer it
// (false).
func (s *scheduler) verdict(i int) (wait bool) {
	st := &s.pl.steps[i]
	return st.answerAt >= 0 || st.giveUp || st.endsAt >= 0
}

// awaits returns the server line client call i waits for once served. That
// is its answer, or else the session's end the server caused after it. It
// returns -1 for a call that waits for the client (it gave it up) or for
// nothing.
func (s *scheduler) awaits(i int) int {
	st := &s.pl.steps[i]
	switch {
	case st.answerAt >= 0:
		return int(st.answerAt)
	case st.giveUp:
		return -1
	}
	return int(st.endsAt)
}

// Unused returns the client lines never served (but optional ones).
func (s *scheduler) Unused() []int {
	var out []int
	for _, i := range s.pl.clients {
		if !s.served[i] && !s.pl.steps[i].optional {
			out = append(out, int(i))
		}
	}
	return out
}
