package replay

import (
	"bytes"
	"encoding/json"

	"github.com/looprig/mcp/cassette/internal/format"
)

// Polling is not part of what must match (the tasks extension, SEP-2663):
// a client polls tasks/get at an interval of its own, so the number of
// polls a recording holds says how fast the recording machine was, not
// what the session did. The plan collapses each run of recorded polls of
// one task that were answered with the same state (its status, message,
// result or error, inputRequests; not its timestamps) into the run's first
// poll: serving the first serves the run, and its answers but the first are
// never delivered. A live client is therefore served the recorded states in
// order, one per poll, whatever the number of polls it was recorded with;
// a poll past the last recorded state matches nothing, and the task's
// result is served once. A tasks/update or tasks/cancel recorded between
// two polls ends a run: what the client sent may have changed the task.

// collapsePolls records in pl the runs of equal polls among the client
// lines of each match key of index.
func collapsePolls(pl *plan, infos []format.LineInfo, index map[string][]int32) {
	for _, cands := range index {
		if len(cands) < 2 || !isPoll(infos[cands[0]]) {
			continue
		}
		head := cands[0]
		for k := 1; k < len(cands); k++ {
			prev, j := cands[k-1], cands[k]
			if samePollState(infos, pl, prev, j) && !taskWritesBetween(infos, pl, prev, j) {
				if pl.polls == nil {
					pl.polls = map[int32][]int32{}
				}
				pl.polls[head] = append(pl.polls[head], j)
				continue
			}
			head = j
		}
	}
}

func isPoll(info format.LineInfo) bool {
	return info.Canon != nil && info.Msg.Kind == format.MsgCall && info.Msg.Method == "tasks/get"
}

// samePollState reports whether polls a and b were answered with the same
// state of their task.
func samePollState(infos []format.LineInfo, pl *plan, a, b int32) bool {
	ra, rb := pl.steps[a].answerAt, pl.steps[b].answerAt
	if ra < 0 || rb < 0 {
		return false
	}
	sa, oka := pollState(infos[ra].Msg)
	sb, okb := pollState(infos[rb].Msg)
	return oka && okb && bytes.Equal(sa, sb)
}

// pollState is a tasks/get answer without what changes from poll to poll
// of one state: canonical JSON of the result (or error) without
// lastUpdatedAt, pollIntervalMs and _meta.
func pollState(m format.MsgInfo) ([]byte, bool) {
	if m.Error != nil {
		return append([]byte("error:"), m.Error...), true
	}
	var r map[string]any
	if json.Unmarshal(m.Result, &r) != nil || r == nil {
		return nil, false
	}
	delete(r, "lastUpdatedAt")
	delete(r, "pollIntervalMs")
	delete(r, "_meta")
	out, err := json.Marshal(r) // map keys sorted: canonical enough to compare
	return out, err == nil
}

// taskWritesBetween reports whether a client line between a and b sends
// tasks/update or tasks/cancel.
func taskWritesBetween(infos []format.LineInfo, pl *plan, a, b int32) bool {
	for j := a + 1; j < b; j++ {
		if pl.steps[j].client && infos[j].Canon != nil && (infos[j].Msg.Method == "tasks/update" || infos[j].Msg.Method == "tasks/cancel") {
			return true
		}
	}
	return false
}

// servePolls serves the polls collapsed into poll i, just served: each is
// taken as sent, and its server lines (its answer, the lines of its stream)
// fail, so that nothing waits for them and none is delivered.
func (s *scheduler) servePolls(i int) {
	for _, j := range s.pl.polls[int32(i)] {
		s.served[j], s.passed[j] = true, true
		s.maxServed = max(s.maxServed, j)
		for k := range s.pl.steps {
			if st := &s.pl.steps[k]; st.server && (st.after == j || st.call == j) {
				s.failed[k] = true
			}
		}
	}
}
