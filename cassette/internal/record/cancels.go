package record

import (
	"encoding/json"
	"slices"

	"github.com/looprig/mcp/cassette/internal/format"
)

// orderCancels writes a client's cancellation of a call the same way
// whatever the timing, as re-recording needs. Three things are timing:
//
//   - The go-sdk sends notifications/cancelled off the cancelled call's
//     return path, on a goroutine of its own. So it races with the
//     client's next messages (and their answers). Its line goes right
//     after the last line of the call it cancels recorded before it:
//     where the client gave the call up. That last line is the call
//     itself, a notification carrying the call's progress token, or (at
//     the HTTP level) a line of the call's stream. What the cancellation
//     passes keeps its order; so do two cancellations of one call.
//   - A server answers a call the client cancelled if it still can, after
//     the cancellation. (The go-sdk's server does, with the handler's
//     error.) The client no longer waits for that answer. Whether it came
//     before the session moved on is timing. It is left out: the call is
//     given up, as replay then has it.
//   - At the HTTP level, the client gives the call's stream up as it
//     cancels. The server may have ended the stream first (an eof, after
//     the cancellation or the session's next requests), or the client
//     did: that is timing too. The stream ends, for the client, right
//     before its cancellation. What the stream carried after it is left
//     out.
func orderCancels(c *format.Cassette) {
	ins := c.Interactions
	type call struct {
		line   int    // the request's line
		stream int    // its HTTP stream; 0 at the message level
		token  string // its progress token, as JSON; "" for none
	}
	calls := map[string]*call{} // client call id key → the call
	out := make([]format.Interaction, 0, len(ins))
	owner := make([]string, 0, len(ins)) // out's lines: the id key of the call each belongs to
	cancelled := map[string]bool{}
	streamOf := map[int]string{} // HTTP stream → the id key of the call it carries
	givenUp := map[int]bool{}    // HTTP streams of cancelled calls, after the cancellation
	closed := map[int]bool{}     // HTTP streams whose close is written
	for i := 0; i < len(ins); i++ {
		in := ins[i]
		m, _ := format.ScanMessage(in.Message)
		id := ""
		switch {
		case in.Message != nil && format.Side(&in) == format.FromClient && m.Kind == format.MsgCall:
			calls[m.ID] = &call{line: i, token: ProgressToken(m.Params)}
			if in.HTTP != nil {
				calls[m.ID].stream = in.HTTP.Stream
				streamOf[in.HTTP.Stream] = m.ID
			}
			id = m.ID
		case in.HTTP != nil && streamOf[in.HTTP.Stream] != "" && !(m.Kind == format.MsgNote && m.Method == "notifications/cancelled"):
			id = streamOf[in.HTTP.Stream]
		case in.Message != nil && m.Kind == format.MsgNote && m.Method == "notifications/progress":
			tok := ProgressToken(m.Params)
			for k, cl := range calls {
				if tok != "" && cl.token == tok {
					id = k
				}
			}
		}
		if in.Message != nil && format.Side(&in) == format.FromServer && m.Kind == format.MsgResponse && cancelled[m.ID] {
			continue // the answer to a call the client gave up
		}
		if in.HTTP != nil && givenUp[in.HTTP.Stream] {
			continue // what a stream the client gave up carried after
		}
		if in.Message != nil && format.Side(&in) == format.FromClient && m.Kind == format.MsgNote && m.Method == "notifications/cancelled" {
			target := format.CancelledID(m.Params)
			if _, known := calls[target]; known {
				cancelled[target] = true
				// The cancellation's own HTTP stream (its request, and the
				// empty response and close that follow it) moves with it.
				group := []format.Interaction{in}
				for i+1 < len(ins) && in.HTTP != nil && ins[i+1].HTTP != nil && ins[i+1].HTTP.Stream == in.HTTP.Stream {
					i++
					group = append(group, ins[i])
				}
				at := len(out)
				for at > 0 && owner[at-1] != target {
					at--
				}
				if at == 0 {
					at = len(out) // nothing of the call is written: keep its place
				}
				if st := calls[target].stream; st != 0 && !givenUp[st] {
					givenUp[st] = true
					if !closed[st] {
						group = append([]format.Interaction{{Kind: format.KindClose, HTTP: &format.HTTP{Stream: st}, Ending: &format.Ending{End: format.EndClient}}}, group...)
					}
				}
				out = slices.Insert(out, at, group...)
				owner = slices.Insert(owner, at, make([]string, len(group))...)
				continue
			}
		}
		if in.HTTP != nil && in.Kind == format.KindClose {
			closed[in.HTTP.Stream] = true
		}
		out = append(out, in)
		owner = append(owner, id)
	}
	renumberStreams(out)
	c.Interactions = out
}

// renumberStreams numbers HTTP streams from 1 in the order their requests
// appear, as the format wants, once lines have moved.
func renumberStreams(ins []format.Interaction) {
	numbers := map[int]int{}
	for i := range ins {
		if h := ins[i].HTTP; h != nil && ins[i].Kind == format.KindRequest {
			if _, ok := numbers[h.Stream]; !ok {
				numbers[h.Stream] = len(numbers) + 1
			}
		}
	}
	for i := range ins {
		if h := ins[i].HTTP; h != nil {
			if n, ok := numbers[h.Stream]; ok && n != h.Stream {
				cp := *h
				cp.Stream = n
				ins[i].HTTP = &cp
			}
		}
	}
}

// ProgressToken returns the progress token in a request's params._meta,
// as JSON, or "".
func ProgressToken(params []byte) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"ProgressToken"`
		} `json:"_meta"`
		Token json.RawMessage `json:"ProgressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if len(p.Meta.Token) > 0 {
		return string(p.Meta.Token)
	}
	return string(p.Token)
}
