package record

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
)

// readOnly are the requests that change nothing at the server, so they
// cause no notification. A server notification that arrives while they are
// made owes them nothing.
var readOnly = map[string]bool{
	"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true, "skills/list": true, "ping": true,
}

// MoveNotificationsEarlier moves each notification the server sent of its own
// accord earlier: before the read-only exchanges recorded just before it.
// Read-only exchanges are listings and pings, requests and their answers.
// At the message level, any server notification moves. At the HTTP level,
// those of the standalone GET stream and of a 2026-07-28
// subscriptions/listen stream move.
//
// Whether such a notification reached the client before or after a listing
// that ran meanwhile is timing, not behaviour: a listing causes no
// notification. Where its line goes must not be timing either. Else
// re-recording a server that announces changes as the session starts would
// not give the same bytes. The move only frees replay: a notification goes
// out once the client messages recorded before it are served. Nothing else
// moves, and notifications keep their order.
func MoveNotificationsEarlier(c *format.Cassette) {
	ins := c.Interactions
	n := len(ins)
	passable := make([]bool, n)   // a line a notification may go before: one of a read-only exchange
	movable := make([]bool, n)    // a server notification that may move earlier
	calls := map[string]string{}  // client call id → method
	reqMethod := map[int]string{} // HTTP stream → the method its request carries
	standaloneStream := map[int]bool{}
	for i := range ins {
		in := &ins[i]
		var m format.MsgInfo
		if in.Message != nil {
			m, _ = format.ScanMessage(in.Message)
		}
		if in.HTTP != nil {
			st := in.HTTP.Stream
			if in.Kind == format.KindRequest {
				if in.Message != nil && m.Kind == format.MsgCall {
					reqMethod[st] = m.Method
				}
				standaloneStream[st] = in.HTTP.Method == http.MethodGet && in.HTTP.Headers.Get("Last-Event-ID") == ""
			}
			switch {
			case readOnly[reqMethod[st]]:
				passable[i] = true
			case (standaloneStream[st] || reqMethod[st] == "subscriptions/listen") && in.Kind == format.KindEvent && in.Message != nil && m.Kind == format.MsgNote:
				movable[i] = true
			}
			continue
		}
		if in.Kind != format.KindMessage {
			continue
		}
		switch {
		case in.From == format.FromClient && m.Kind == format.MsgCall:
			calls[m.ID] = m.Method
			passable[i] = readOnly[m.Method]
		case in.From == format.FromServer && m.Kind == format.MsgResponse:
			passable[i] = readOnly[calls[m.ID]]
		case in.From == format.FromServer && m.Kind == format.MsgNote:
			movable[i] = true
		}
	}
	for i := 1; i < n; i++ {
		if !movable[i] {
			continue
		}
		j := i
		if at, ok := ackOf(ins, i); ok {
			// An acknowledgement of a subscription answers its request
			// alone. It goes right after the request (at HTTP, after the
			// lines of its stream before it).
			for j > 0 && j-1 > at && !sameStream(&ins[j-1], &ins[i]) {
				j--
			}
		} else {
			for j > 0 && passable[j-1] {
				j--
			}
		}
		if j == i {
			continue
		}
		// The close lines that follow the event on its stream go with it.
		k := i + 1
		for k < n && ins[k].Kind == format.KindClose && ins[k].HTTP != nil && ins[i].HTTP != nil && ins[k].HTTP.Stream == ins[i].HTTP.Stream {
			k++
		}
		rotate(ins[j:k], i-j)
		rotate(passable[j:k], i-j)
		rotate(movable[j:k], i-j)
		for x := j; x < j+k-i; x++ {
			passable[x], movable[x] = false, false
		}
		i = k - 1
	}
}

// rotate moves s[m:] before s[:m].
func rotate[T any](s []T, m int) {
	tail := append([]T(nil), s[m:]...)
	copy(s[len(tail):], s[:m])
	copy(s, tail)
}

// ackOf reports whether line i is a notifications/subscriptions/acknowledged
// and returns the line of the subscriptions/listen request it acknowledges
// (at HTTP, its stream's request).
func ackOf(ins []format.Interaction, i int) (int, bool) {
	m, err := format.ScanMessage(ins[i].Message)
	if err != nil || m.Method != "notifications/subscriptions/acknowledged" {
		return 0, false
	}
	if h := ins[i].HTTP; h != nil {
		for k := i - 1; k >= 0; k-- {
			if ins[k].Kind == format.KindRequest && ins[k].HTTP.Stream == h.Stream {
				return k, true
			}
		}
		return 0, false
	}
	id := subscriptionID(m.Params)
	for k := i - 1; k >= 0 && id != ""; k-- {
		if in := &ins[k]; in.Kind == format.KindMessage && in.From == format.FromClient {
			if q, err := format.ScanMessage(in.Message); err == nil && q.Kind == format.MsgCall && q.Method == "subscriptions/listen" && q.ID == id {
				return k, true
			}
		}
	}
	return 0, false
}

// subscriptionID returns the key of the request an acknowledgement's
// "_meta" names.
func subscriptionID(params []byte) string {
	var p struct {
		Meta struct {
			ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta.ID == nil {
		return ""
	}
	k, _ := format.IDKey(p.Meta.ID)
	return k
}

func sameStream(a, b *format.Interaction) bool {
	return a.HTTP != nil && b.HTTP != nil && a.HTTP.Stream == b.HTTP.Stream
}

// moveNotificationsLater moves each notification of the standalone GET
// stream or of a subscriptions/listen stream (HTTP level) later. It goes
// after the lines of the requests in flight when it came. Those are the
// answers, events and ends that follow it on streams whose requests were
// recorded before it. A server may send a notification while it answers a call (a
// resource it changes, a list). It writes the two on two streams, which
// reach the client in either order. The notification may well be the
// call's doing, so it goes after the call's answer. It passes no request,
// so replay keeps it where it was: it goes out once the client messages
// recorded before it are served.
func moveNotificationsLater(c *format.Cassette) {
	moveSideClosesEarlier(c)
	ins := c.Interactions
	reqAt := map[int]int{} // stream → the line of its request
	side := map[int]bool{} // streams whose notifications relate to no request
	for i := range ins {
		h := ins[i].HTTP
		if h == nil || ins[i].Kind != format.KindRequest {
			continue
		}
		reqAt[h.Stream] = i
		m, _ := format.ScanMessage(ins[i].Message)
		side[h.Stream] = format.Standalone(&ins[i]) || ins[i].Message != nil && m.Kind == format.MsgCall && m.Method == "subscriptions/listen"
	}
	for i := 0; i < len(ins); i++ {
		h := ins[i].HTTP
		m, _ := format.ScanMessage(ins[i].Message)
		if h == nil || ins[i].Kind != format.KindEvent || !side[h.Stream] || ins[i].Message == nil || m.Kind != format.MsgNote || m.Method == "notifications/subscriptions/acknowledged" {
			continue
		}
		k := i + 1 // the notification and the close lines of its stream after it
		for k < len(ins) && ins[k].Kind == format.KindClose && ins[k].HTTP != nil && ins[k].HTTP.Stream == h.Stream {
			k++
		}
		j := k
		for j < len(ins) {
			o := ins[j].HTTP
			if o == nil || ins[j].Kind == format.KindRequest || o.Stream == h.Stream || side[o.Stream] || reqAt[o.Stream] > i {
				break
			}
			j++
		}
		if j == k {
			continue
		}
		rotate(ins[i:j], k-i)
		i = j - 1
	}
}

// moveAnswersEarlier moves the answer to a call that changes something
// (not a listing) earlier. It goes before the list changes
// (notifications/…/list_changed) and the read-only exchanges recorded
// between the call and it. At HTTP, the close lines of its stream that
// follow it and the bare response line right before it move with it.
//
// A server that changes its lists in a call may send the change before or
// after the call's answer. (A go-sdk server sends it from a timer, 10 ms
// after the change.) The client re-lists as soon as it hears of it.
// Whether the answer reached the client before the change, or after the
// listings that followed it, is timing, not behaviour. No listing is
// answered by it, nor a list change. Where its line goes must not be
// timing either, or re-recording such a server would not give the same
// bytes. At the HTTP level the answer also passes the end of a listen or
// standalone stream. It passes nothing else. A progress or log
// notification, a server request, or any other client message (a
// cancellation, an input response) keeps its place before it.
func moveAnswersEarlier(c *format.Cassette) {
	ins := c.Interactions
	n := len(ins)
	calls := map[string]string{}  // client call id → method (message level)
	reqMethod := map[int]string{} // HTTP stream → the method of its call
	side := map[int]bool{}        // HTTP streams of the server's own notifications
	passable := make([]bool, n)   // a line an answer may go before
	answer := make([]bool, n)     // the answer to a call that is not a listing
	for i := range ins {
		in := &ins[i]
		var m format.MsgInfo
		if in.Message != nil {
			m, _ = format.ScanMessage(in.Message)
		}
		listChange := in.Message != nil && m.Kind == format.MsgNote && strings.HasSuffix(m.Method, "/list_changed")
		if h := in.HTTP; h != nil {
			if in.Kind == format.KindRequest {
				if in.Message != nil && m.Kind == format.MsgCall {
					reqMethod[h.Stream] = m.Method
				}
				side[h.Stream] = format.Standalone(in) || reqMethod[h.Stream] == "subscriptions/listen"
			}
			switch method := reqMethod[h.Stream]; {
			case readOnly[method]:
				passable[i] = true
			case side[h.Stream]:
				passable[i] = in.Kind == format.KindEvent && listChange || in.Kind == format.KindClose
			case method != "" && in.Message != nil && m.Kind == format.MsgResponse && (in.Kind == format.KindEvent || in.Kind == format.KindResponse):
				answer[i] = true
			}
			continue
		}
		if in.Kind != format.KindMessage {
			continue
		}
		switch {
		case in.From == format.FromClient && m.Kind == format.MsgCall:
			calls[m.ID] = m.Method
			passable[i] = readOnly[m.Method]
		case in.From == format.FromServer && m.Kind == format.MsgResponse:
			passable[i] = readOnly[calls[m.ID]]
			answer[i] = calls[m.ID] != "" && !readOnly[calls[m.ID]]
		case in.From == format.FromServer:
			passable[i] = listChange
		}
	}
	for i := 1; i < n; i++ {
		if !answer[i] {
			continue
		}
		// An event stream's response line goes with its answer: the
		// server may send the change before the call's response has
		// begun, and the re-listing may pass it.
		if r := bareResponse(ins, passable, i); r >= 0 && r < i-1 {
			rotate(ins[r:i], 1)
			rotate(passable[r:i], 1)
			rotate(answer[r:i], 1)
		}
		from := i
		if ins[i-1].Kind == format.KindResponse && ins[i-1].Message == nil && sameStream(&ins[i-1], &ins[i]) {
			from = i - 1
		}
		j := from
		for j > 0 && passable[j-1] && !sameStream(&ins[j-1], &ins[i]) {
			j--
		}
		if j == from {
			continue
		}
		k := i + 1 // the close lines that follow the answer on its stream go with it
		for k < n && ins[k].Kind == format.KindClose && sameStream(&ins[k], &ins[i]) {
			k++
		}
		rotate(ins[j:k], from-j)
		rotate(passable[j:k], from-j)
		rotate(answer[j:k], from-j)
		i = k - 1
	}
}

// bareResponse returns the line of the response (headers, no message)
// that began answer i's event stream. Only lines an answer may pass
// (passable, on other streams) may come between them; else it returns -1.
func bareResponse(ins []format.Interaction, passable []bool, i int) int {
	for r := i - 1; r >= 0; r-- {
		switch {
		case sameStream(&ins[r], &ins[i]):
			if ins[r].Kind == format.KindResponse && ins[r].Message == nil {
				return r
			}
			return -1
		case !passable[r]:
			return -1
		}
	}
	return -1
}

// moveSideClosesEarlier moves the close of every listen or standalone
// stream that was open until the client let it go (format.EndSession). The
// close goes right after its stream's last line, where a close line is
// written. The client closes such a stream (an unsubscribe, a listen it no
// longer needs) off its calls' path. So whether the close reaches the
// recorder before or among the requests that follow is timing, not
// behaviour. Replay keeps such a stream open until the client closes it,
// wherever the line is.
func moveSideClosesEarlier(c *format.Cassette) {
	ins := c.Interactions
	side := map[int]bool{}
	last := map[int]int{} // stream → the index of its last line so far
	for i := 0; i < len(ins); i++ {
		h := ins[i].HTTP
		if h == nil {
			continue
		}
		if ins[i].Kind == format.KindRequest {
			m, _ := format.ScanMessage(ins[i].Message)
			side[h.Stream] = format.Standalone(&ins[i]) || ins[i].Message != nil && m.Kind == format.MsgCall && m.Method == "subscriptions/listen"
		}
		if j, ok := last[h.Stream]; ok && ins[i].Kind == format.KindClose && side[h.Stream] && ins[i].Ending != nil && ins[i].Ending.End == format.EndSession && j < i-1 {
			rotate(ins[j+1:i+1], i-j-1)
			for st, k := range last {
				if k > j {
					last[st] = k + 1 // moved down by the close put before it
				}
			}
			last[h.Stream] = j + 1
			continue
		}
		last[h.Stream] = i
	}
}
