package replay

import (
	"bytes"

	"github.com/looprig/mcp/cassette/internal/format"
)

// A recording of a protected server may hold a request refused with 401
// or 403 outside JSON-RPC and then sent again, message and id unchanged:
// the tokenless first request of a client that discovers its
// authorization server from the refusal, or a DPoP proof without the
// nonce the server then asked for. That exchange is the credentials'
// doing, not the session's; replay needs no credentials (Open replays
// through a factory without them: nothing reaches an authorization
// server), so it passes such a refusal over: the live request is served
// the answer of the request sent again, and the refused one is neither
// served nor reported unused. Verify sends the refused one to the live
// server not at all (the live factory has credentials of its own, which
// recover as the recorded client's did; sent, a tools/call would reach
// the server twice), and Compare leaves it out of both sessions. A
// refusal the client did not recover from (nothing sent again) is
// replayed, verified and compared as recorded.

// RecoveredRefusals returns the HTTP request lines of c refused with 401
// or 403 outside JSON-RPC whose message was sent again later.
func RecoveredRefusals(c *format.Cassette, infos []format.LineInfo) []int32 {
	ins := c.Interactions
	refused := map[int]bool{} // streams refused 401 or 403 with no message
	for i := range ins {
		if h := ins[i].HTTP; h != nil && ins[i].Kind == format.KindResponse && infos[i].Canon == nil && (h.Status == 401 || h.Status == 403) {
			refused[h.Stream] = true
		}
	}
	var out []int32
	for r := range ins {
		h := ins[r].HTTP
		if h == nil || ins[r].Kind != format.KindRequest || infos[r].Canon == nil || !refused[h.Stream] {
			continue
		}
		for j := r + 1; j < len(ins); j++ {
			if ins[j].HTTP != nil && ins[j].Kind == format.KindRequest && bytes.Equal(infos[j].Canon, infos[r].Canon) {
				out = append(out, int32(r))
				break
			}
		}
	}
	return out
}

// LineSet returns lines as a set.
func LineSet(lines []int32) map[int]bool {
	set := make(map[int]bool, len(lines))
	for _, i := range lines {
		set[int(i)] = true
	}
	return set
}

// passOver takes the refused requests of the plan as served, with their
// streams' lines failed: nothing waits for them and none is delivered.
func (s *scheduler) passOver() {
	for _, r := range s.pl.refused {
		s.served[r], s.passed[r] = true, true
		for k := range s.pl.steps {
			if st := &s.pl.steps[k]; st.server && st.after == r {
				s.failed[k] = true
			}
		}
	}
}
