package main

import (
	"bufio"
	"fmt"

	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/internal/transcript"
)

// How often a client polled a task says how fast its machine was, not what
// the session did (the tasks extension; a cassette replays a run of polls
// answered with one state as one). The pictures fold such a run: the
// first poll of a state is shown, the repeats are counted.

// repeatedPolls returns the message numbers of the polls (tasks/get) that
// repeat the state the previous poll of their task was answered with, as
// transcript.Polls leaves them out.
func repeatedPolls(calls []*transcript.Call) map[int]bool {
	kept := map[*transcript.Call]bool{}
	for _, c := range transcript.Polls(calls) {
		kept[c] = true
	}
	out := map[int]bool{}
	for _, c := range calls {
		if !kept[c] {
			out[c.Number] = true
		}
	}
	return out
}

// A pollRun is a run of repeated polls shown as one: the polls from
// message first to last (their answers included).
type pollRun struct {
	polls       int
	first, last int // message numbers
	task, state string
}

func (r *pollRun) label() string {
	s := "poll"
	if r.polls > 1 {
		s = "polls"
	}
	return fmt.Sprintf("%d more %s of task %s answered %s (#%d–#%d)", r.polls, s, r.task, r.state, r.first, r.last)
}

// taskState is what a poll's answer says of its task: its status.
func taskState(c *transcript.Call) (task, state string) {
	task, _ = c.Params["taskId"].(string)
	res, _ := c.Result.(map[string]any)
	state, _ = res["status"].(string)
	if c.Error != nil {
		state = fmt.Sprintf("error %d", c.Error.Code)
	}
	return task, state
}

// foldSteps returns steps with each run of repeated polls (consecutive
// steps marked repeat) replaced by a note saying how many there were. runs
// holds each run, by the index of its note in the result.
func foldSteps(steps []step) (out []step, runs map[int]*pollRun) {
	runs = map[int]*pollRun{}
	var cur *pollRun
	for _, st := range steps {
		if st.poll == nil {
			cur = nil
			out = append(out, st)
			continue
		}
		if cur == nil {
			cur = &pollRun{first: st.number}
			cur.task, cur.state = taskState(st.poll)
			runs[len(out)] = cur
			out = append(out, step{line: st.line, kind: "polls", over: "both"})
		}
		cur.last = st.number
		if st.kind == "request" {
			cur.polls++
		}
	}
	for i, r := range runs {
		out[i].label = r.label()
	}
	return out, runs
}

// writeCalls writes the calls of inspect's text, each run of repeated
// polls as one line.
func writeCalls(w *bufio.Writer, s *transcript.Session) {
	repeats := repeatedPolls(s.Requests)
	fmt.Fprintf(w, "\ncalls (%d):\n", len(s.Calls))
	var run *pollRun
	flush := func() {
		if run != nil {
			fmt.Fprintf(w, "  %s\n", safetext.Line(run.label()))
			run = nil
		}
	}
	for _, call := range s.Calls {
		if repeats[call.Number] {
			if run == nil {
				run = &pollRun{first: call.Number}
				run.task, run.state = taskState(call)
			}
			run.polls++
			run.last = max(call.Number, call.AnswerNumber)
			continue
		}
		flush()
		fmt.Fprintf(w, "  #%d line %d: %s\n", call.Number, call.Line, safetext.Line(call.Describe()))
		answer := call.Summary()
		if call.Answered {
			answer = fmt.Sprintf("#%d %s", call.AnswerNumber, answer)
		}
		fmt.Fprintf(w, "    -> %s\n", safetext.Line(answer))
	}
	flush()
}
