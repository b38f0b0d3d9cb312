package replay

import (
	"net/http"

	"github.com/looprig/mcp/cassette/internal/format"
)

// buildPlan computes the scheduler's steps of c (which analyse accepted,
// with what it learnt in infos), at the message level or the HTTP level.
func buildPlan(c *format.Cassette, infos []format.LineInfo) (*plan, map[int]*format.StreamLines) {
	n := len(c.Interactions)
	pl := &plan{steps: make([]step, n)}
	for i := range pl.steps {
		pl.steps[i].after, pl.steps[i].call, pl.steps[i].answerAt, pl.steps[i].endsAt = -1, -1, -1, -1
	}
	var streams map[int]*format.StreamLines
	if c.Kind().String() == "streamablehttp" {
		streams = planHTTP(c, infos, pl)
	} else {
		planMessages(c, infos, pl)
	}
	afterCancellations(infos, pl)
	for i := range pl.steps {
		st := &pl.steps[i]
		if st.client {
			pl.clients = append(pl.clients, int32(i))
		}
		if st.answer {
			pl.answers = append(pl.answers, int32(i))
		}
	}
	return pl, streams
}

// planMessages plans a message-level session: a client message is a client
// line; a server response answers its call; any other server message, and
// an ending the server caused, keeps its place.
func planMessages(c *format.Cassette, infos []format.LineInfo, pl *plan) {
	gaveUp := map[string]bool{} // ids of calls the client cancelled or left pending at its close
	endAt := int32(-1)          // the last session ending the server caused, scanning backwards
	for i := len(c.Interactions) - 1; i >= 0; i-- {
		in, st, info := &c.Interactions[i], &pl.steps[i], &infos[i]
		switch {
		case in.Kind == format.KindClose:
			if in.Ending.End == format.EndClient {
				for _, id := range in.Ending.Pending {
					k, _ := format.IDKey(id)
					gaveUp[k] = true
				}
				continue
			}
			st.server, st.terminal = true, true
			endAt = int32(i)
		case in.Kind != format.KindMessage:
		case in.From == format.FromClient:
			st.client = true
			switch info.Msg.Kind {
			case format.MsgNote:
				st.skippable = true
				if info.Msg.Method == "notifications/cancelled" {
					st.optional = true
					if id := format.CancelledID(info.Msg.Params); id != "" {
						gaveUp[id] = true
					}
				}
			case format.MsgResponse:
				st.reply = true
			case format.MsgCall:
				st.answerAt = int32(info.Pair)
				if info.Pair < 0 {
					st.giveUp = gaveUp[info.Msg.ID]
					st.endsAt = endAt
				}
			}
		default:
			st.server = true
			if info.Msg.Kind == format.MsgResponse {
				st.answer = true
				st.after = int32(info.Pair)
			}
		}
	}
	// The client's answers to server requests made while a call ran, recorded
	// before its answer, come before that answer.
	for i := range pl.steps {
		st := &pl.steps[i]
		if !st.answer {
			continue
		}
		for j := st.after + 1; j < int32(i); j++ {
			if pl.steps[j].client && infos[j].Msg.Kind == format.MsgResponse {
				st.needs = append(st.needs, j)
			}
		}
	}
}

// afterCancellations orders the answer to a call after the client's
// cancellation of that call, when the cancellation was recorded before it:
// the server answered because the client gave the call up (its handler
// returned when cancelled), so the live client gets the answer only once it
// has given the call up too, or passed the cancellation by. Both levels.
func afterCancellations(infos []format.LineInfo, pl *plan) {
	cancels := map[string][]int32{}
	for j := range pl.steps {
		if m := &infos[j].Msg; pl.steps[j].client && infos[j].Canon != nil && m.Kind == format.MsgNote && m.Method == "notifications/cancelled" {
			id := format.CancelledID(m.Params)
			cancels[id] = append(cancels[id], int32(j))
		}
	}
	if len(cancels) == 0 {
		return
	}
	pl.cancels = cancels
	for i := range pl.steps {
		st := &pl.steps[i]
		if !st.answer {
			continue
		}
		call := st.after
		if st.call >= 0 {
			call = st.call
		}
		for _, j := range cancels[infos[call].Msg.ID] {
			if call < j && j < int32(i) {
				st.needs = append(st.needs[:len(st.needs):len(st.needs)], j)
			}
		}
	}
}

// keepsPlaceOnListen reports whether line in, of the stream of req, is a
// notification a 2026-07-28 subscriptions/listen stream carries (a list
// change, a resource update) or that stream's close: like the standalone
// GET stream's, they relate to no request and keep their place, and would
// otherwise all go out as soon as the listen is served (at Connect, for the
// listen of list changes). Its acknowledgement answers the listen, and
// stays attached to it.
func keepsPlaceOnListen(in, req *format.Interaction, info, reqInfo format.LineInfo) bool {
	if reqInfo.Canon == nil || reqInfo.Msg.Kind != format.MsgCall || reqInfo.Msg.Method != "subscriptions/listen" {
		return false
	}
	switch in.Kind {
	case format.KindClose:
		return true
	case format.KindEvent:
		return info.Canon != nil && info.Msg.Kind == format.MsgNote && info.Msg.Method != "notifications/subscriptions/acknowledged"
	}
	return false
}

// planHTTP plans a Streamable HTTP session: a request is a client line; the
// lines of its stream are attached to it, but for the events and close of
// the standalone GET stream and the notifications of a subscriptions/listen
// stream, which keep their place; an answer on a resumed stream waits for
// its call as well.
func planHTTP(c *format.Cassette, infos []format.LineInfo, pl *plan) map[int]*format.StreamLines {
	ins := c.Interactions
	idx := format.StreamIndex(ins)
	for i := range ins {
		in, st, info := &ins[i], &pl.steps[i], &infos[i]
		if in.HTTP == nil {
			continue // the session's end: nothing to serve
		}
		sl := idx[in.HTTP.Stream]
		if in.Kind == format.KindRequest {
			st.client = true
			st.skippable = format.Standalone(in) || info.Canon != nil && info.Msg.Kind == format.MsgNote
			st.optional = info.Canon != nil && info.Msg.Kind == format.MsgNote && info.Msg.Method == "notifications/cancelled"
			st.reply = info.Canon != nil && info.Msg.Kind == format.MsgResponse
			st.answerAt = int32(info.Pair)
			continue
		}
		st.server = true
		req := &ins[sl.Req]
		st.after = int32(sl.Req)
		if format.Standalone(req) && in.Kind != format.KindResponse || keepsPlaceOnListen(in, req, infos[i], infos[sl.Req]) {
			st.after = -1
		}
		st.immediate = req.HTTP.Method == http.MethodDelete
		if info.Canon != nil && info.Msg.Kind == format.MsgResponse && info.Pair >= 0 && format.Side(in) == format.FromServer {
			st.answer = true
			if int(info.Pair) != sl.Req {
				st.call = int32(info.Pair)
			}
		}
	}
	// A line of a stream waits for the client's answers, recorded before it,
	// to the server requests the stream carried.
	answersTo := map[int][]int32{} // stream → client answers to its server requests, in order
	for j := range ins {
		in, info := &ins[j], &infos[j]
		if in.Kind == format.KindRequest && info.Canon != nil && info.Msg.Kind == format.MsgResponse && info.Pair >= 0 {
			if q := &ins[info.Pair]; q.HTTP != nil {
				answersTo[q.HTTP.Stream] = append(answersTo[q.HTTP.Stream], int32(j))
			}
		}
	}
	for stream, js := range answersTo {
		k := 0
		for _, l := range idx[stream].Lines() {
			for k < len(js) && int(js[k]) < l {
				k++
			}
			if k > 0 && !pl.steps[l].immediate {
				pl.steps[l].needs = js[:k:k]
			}
		}
	}
	return idx
}
