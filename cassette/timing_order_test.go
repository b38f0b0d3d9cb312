package cassette

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette/internal/record"
)

// Lines of a session that changes the tools list in a call: the toggle
// call, its answer, the list change and the client's re-listing.
const (
	toggleReq   = `c:{"id":5,"jsonrpc":"2.0","method":"tools/call","params":{"name":"toggle"}}`
	toggleResp  = `s:{"id":5,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"added"}]}}`
	relistReq   = `c:{"id":6,"jsonrpc":"2.0","method":"tools/list"}`
	relistResp  = `s:{"id":6,"jsonrpc":"2.0","result":{"tools":[{"name":"extra"}]}}`
	slowReq     = `c:{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p7"}}}`
	slowSteps   = `s:{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p7","progress":1}}`
	slowCancel  = `c:{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
	slowResp    = `s:{"id":7,"jsonrpc":"2.0","error":{"code":-32800,"message":"cancelled"}}`
	slowDone    = `s:{"id":7,"jsonrpc":"2.0","result":{}}`
	nextReq     = `c:{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`
	nextResp    = `s:{"id":8,"jsonrpc":"2.0","result":{}}`
	samplingReq = `s:{"id":1,"jsonrpc":"2.0","method":"sampling/createMessage","params":{}}`
	samplingOK  = `c:{"id":1,"jsonrpc":"2.0","result":{}}`
	rootsNote   = `c:{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
)

// TestRecordingOrdersWrittenOneWay: each way timing can order one
// session's lines, as a recorder sees them, is written the same way. A
// second recording of one session must give that. What may have caused a
// line stays before it.
func TestRecordingOrdersWrittenOneWay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		orders [][]string // the ways the lines may come; the first is also what is written when want is nil
		want   []string
	}{
		{
			// A go-sdk server sends the list change from a timer: it may
			// beat the answer, and the client re-lists at once.
			name: "an answer, and the list change and listing around it",
			orders: [][]string{
				{toggleReq, toggleResp, changed, relistReq, relistResp},
				{toggleReq, changed, toggleResp, relistReq, relistResp},
				{toggleReq, changed, relistReq, toggleResp, relistResp},
				{toggleReq, changed, relistReq, relistResp, toggleResp},
			},
		},
		{
			// The go-sdk sends the cancellation from a goroutine of its
			// own, racing the client's next call; the server's late answer
			// is left out.
			name: "a cancellation, and the next call",
			orders: [][]string{
				{slowReq, slowSteps, slowCancel, nextReq, nextResp},
				{slowReq, slowSteps, nextReq, slowCancel, nextResp},
				{slowReq, slowSteps, nextReq, nextResp, slowCancel},
				{slowReq, slowSteps, slowCancel, slowResp, nextReq, nextResp},
				{slowReq, slowSteps, nextReq, slowCancel, slowResp, nextResp},
			},
			want: []string{slowReq, slowSteps, slowCancel, nextReq, nextResp},
		},
		{name: "an answer does not pass its call's progress", orders: [][]string{{slowReq, slowSteps, changed, slowDone}, {slowReq, slowSteps, slowDone, changed}}, want: []string{slowReq, slowSteps, slowDone, changed}},
		{name: "nor a server request", orders: [][]string{{toggleReq, samplingReq, samplingOK, toggleResp}}},
		{name: "nor a client notification", orders: [][]string{{toggleReq, changed, rootsNote, toggleResp}}},
		{name: "nor a call", orders: [][]string{{toggleReq, changed, nextReq, nextResp, toggleResp}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = tc.orders[0]
			}
			for i, order := range tc.orders {
				c := msgLines(order...)
				inFormat(c, record.OrderMessages)
				if diff := cmp.Diff(want, shown(c)); diff != "" {
					t.Errorf("order %d written otherwise (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// httpLine is one line of an HTTP recording, for the tests: "req S MSG",
// "get S" (the standalone stream), "resp S", "accepted S" (a 202),
// "event S ID MSG", "close S" (at eof), "gave-up S" (the client's close),
// "let-go S" (open until the client let it go: EndSession).
type httpLine struct {
	kind   string
	stream int
	id     string // an event's id
	msg    string // a message, as msgLines takes it (the c:/s: prefix ignored)
}

func httpLines(lines ...httpLine) *Cassette {
	c := &Cassette{}
	for _, l := range lines {
		in := Interaction{HTTP: &HTTP{Stream: l.stream}}
		if l.msg != "" {
			in.Message = []byte(l.msg[2:])
		}
		switch l.kind {
		case "req":
			in.Kind, in.HTTP.Method, in.HTTP.URL = KindRequest, "POST", "/mcp"
		case "get":
			in.Kind, in.HTTP.Method, in.HTTP.URL = KindRequest, "GET", "/mcp"
		case "resp":
			in.Kind, in.HTTP.Status = KindResponse, 200
		case "event":
			in.Kind, in.HTTP.Event, in.HTTP.ID = KindEvent, "message", l.id
		case "close":
			in.Kind, in.Ending = KindClose, &Ending{End: EndEOF}
		case "gave-up":
			in.Kind, in.Ending = KindClose, &Ending{End: EndClient}
		case "let-go":
			in.Kind, in.Ending = KindClose, &Ending{End: EndSession}
		case "accepted":
			in.Kind, in.HTTP.Status = KindResponse, 202
		}
		c.Interactions = append(c.Interactions, in)
	}
	return c
}

func shownHTTP(c *Cassette) []string {
	var out []string
	for _, in := range c.Interactions {
		s := fmt.Sprintf("%s %d", in.Kind, in.HTTP.Stream)
		if in.HTTP.ID != "" {
			s += " id=" + in.HTTP.ID
		}
		if in.Message != nil {
			s += " " + string(in.Message)
		}
		if in.Ending != nil {
			s += " end=" + in.Ending.End
		}
		out = append(out, s)
	}
	return out
}

// TestHTTPRecordingOrdersWrittenOneWay is TestRecordingOrdersWrittenOneWay
// at the HTTP level. There the list change comes on the listen (or
// standalone) stream and the answer on its call's stream. Event ids are
// numbered in the order written.
func TestHTTPRecordingOrdersWrittenOneWay(t *testing.T) {
	listenReq := `c:{"id":2,"jsonrpc":"2.0","method":"subscriptions/listen"}`
	var (
		listen  = httpLine{"req", 1, "", listenReq}
		listenR = httpLine{"resp", 1, "", ""}
		acked   = httpLine{"event", 1, "L_1", ack}
		togReq  = httpLine{"req", 2, "", toggleReq}
		togR    = httpLine{"resp", 2, "", ""}
		togAns  = httpLine{"event", 2, "T_1", toggleResp}
		togEnd  = httpLine{"close", 2, "", ""}
		change  = httpLine{"event", 1, "L_2", changed}
		lsReq   = httpLine{"req", 3, "", relistReq}
		lsR     = httpLine{"resp", 3, "", ""}
		lsAns   = httpLine{"event", 3, "R_1", relistResp}
		lsEnd   = httpLine{"close", 3, "", ""}
	)
	// The listen stream's end, right after the change, goes with it.
	listenEnd := httpLine{"gave-up", 1, "", ""}
	for _, orders := range [][][]httpLine{{
		{listen, listenR, acked, togReq, togR, togAns, togEnd, change, lsReq, lsR, lsAns, lsEnd},
		{listen, listenR, acked, togReq, change, togR, togAns, togEnd, lsReq, lsR, lsAns, lsEnd},
		{listen, listenR, acked, togReq, togR, change, togAns, togEnd, lsReq, lsR, lsAns, lsEnd},
		{listen, listenR, acked, togReq, togR, change, lsReq, lsR, lsAns, lsEnd, togAns, togEnd},
		{listen, listenR, acked, togReq, togR, change, lsReq, lsR, togAns, togEnd, lsAns, lsEnd},
		// The change before the toggle's response began: the response
		// line goes with its answer.
		{listen, listenR, acked, togReq, change, lsReq, togR, togAns, togEnd, lsR, lsAns, lsEnd},
		// The re-listing over before the toggle's response began.
		{listen, listenR, acked, togReq, change, lsReq, lsR, lsAns, lsEnd, togR, togAns, togEnd},
		{listen, listenR, acked, togReq, change, lsReq, lsR, togR, lsAns, lsEnd, togAns, togEnd},
		{listen, listenR, acked, togReq, change, lsReq, lsR, lsAns, togR, lsEnd, togAns, togEnd},
	}, {
		{listen, listenR, acked, togReq, togR, togAns, togEnd, change, listenEnd, lsReq, lsR, lsAns, lsEnd},
		{listen, listenR, acked, togReq, togR, change, listenEnd, togAns, togEnd, lsReq, lsR, lsAns, lsEnd},
		{listen, listenR, acked, togReq, change, listenEnd, lsReq, togR, togAns, togEnd, lsR, lsAns, lsEnd},
	}} {
		// Event ids are numbered in the written order: the listen's
		// prefix first, then the toggle's, then the listing's.
		ids := strings.NewReplacer("id=L_", "id=s1_", "id=T_", "id=s2_", "id=R_", "id=s3_")
		var want []string
		for _, s := range shownHTTP(httpLines(orders[0]...)) {
			want = append(want, ids.Replace(s))
		}
		for i, order := range orders {
			c := httpLines(order...)
			inFormat(c, record.OrderHTTP)
			if diff := cmp.Diff(want, shownHTTP(c)); diff != "" {
				t.Errorf("order %d written otherwise (-want +got):\n%s", i, diff)
			}
		}
	}
}

// TestHTTPCancellationWrittenOneWay: a call the client cancels at
// 2025-11-25 over HTTP ends its stream, for the client, right before the
// cancellation. That holds whether the client gave the stream up first, or
// the server ended it once the session had moved on (with its answer to
// the cancelled call).
func TestHTTPCancellationWrittenOneWay(t *testing.T) {
	var (
		slow      = httpLine{"req", 1, "", slowReq}
		slowR     = httpLine{"resp", 1, "", ""}
		steps     = httpLine{"event", 1, "A_1", slowSteps}
		slowAns   = httpLine{"event", 1, "A_2", slowResp}
		slowEOF   = httpLine{"close", 1, "", ""}
		slowGone  = httpLine{"gave-up", 1, "", ""}
		cancel    = httpLine{"req", 2, "", slowCancel}
		cancelR   = httpLine{"accepted", 2, "", ""}
		next      = httpLine{"req", 3, "", nextReq}
		nextR     = httpLine{"resp", 3, "", ""}
		nextAns   = httpLine{"event", 3, "B_1", nextResp}
		nextClose = httpLine{"close", 3, "", ""}
	)
	orders := [][]httpLine{
		{slow, slowR, steps, slowGone, cancel, cancelR, next, nextR, nextAns, nextClose},
		{slow, slowR, steps, cancel, cancelR, next, nextR, slowAns, slowEOF, nextAns, nextClose},
		{slow, slowR, steps, cancel, cancelR, slowAns, slowEOF, next, nextR, nextAns, nextClose},
		{slow, slowR, steps, next, cancel, cancelR, nextR, nextAns, slowEOF, nextClose},
	}
	ids := strings.NewReplacer("id=A_", "id=s1_", "id=B_", "id=s2_")
	var want []string
	for _, s := range shownHTTP(httpLines(orders[0]...)) {
		want = append(want, ids.Replace(s))
	}
	for i, order := range orders {
		c := httpLines(order...)
		inFormat(c, record.OrderHTTP)
		if diff := cmp.Diff(want, shownHTTP(c)); diff != "" {
			t.Errorf("order %d written otherwise (-want +got):\n%s", i, diff)
		}
	}
}

// TestHTTPListenLetGoWrittenOneWay: a listen the client lets go of (an
// unsubscribe) is closed off the calls' path. Its close is written right
// after the stream's last line. That holds wherever the close reached the
// recorder among the requests that follow.
func TestHTTPListenLetGoWrittenOneWay(t *testing.T) {
	var (
		listen  = httpLine{"req", 1, "", `c:{"id":2,"jsonrpc":"2.0","method":"subscriptions/listen"}`}
		listenR = httpLine{"resp", 1, "", ""}
		acked   = httpLine{"event", 1, "L_1", ack}
		letGo   = httpLine{"let-go", 1, "", ""}
		lsReq   = httpLine{"req", 2, "", relistReq}
		lsR     = httpLine{"resp", 2, "", ""}
		lsAns   = httpLine{"event", 2, "R_1", relistResp}
		lsEnd   = httpLine{"close", 2, "", ""}
		togReq  = httpLine{"req", 3, "", toggleReq}
		togR    = httpLine{"resp", 3, "", ""}
		togAns  = httpLine{"event", 3, "T_1", toggleResp}
		togEnd  = httpLine{"close", 3, "", ""}
	)
	orders := [][]httpLine{
		{listen, listenR, acked, letGo, lsReq, lsR, lsAns, lsEnd, togReq, togR, togAns, togEnd},
		{listen, listenR, acked, lsReq, letGo, lsR, lsAns, lsEnd, togReq, togR, togAns, togEnd},
		{listen, listenR, acked, lsReq, lsR, lsAns, lsEnd, togReq, togR, letGo, togAns, togEnd},
		{listen, listenR, acked, lsReq, lsR, lsAns, lsEnd, togReq, togR, togAns, togEnd, letGo},
	}
	want := shownHTTP(func() *Cassette { c := httpLines(orders[0]...); inFormat(c, record.OrderHTTP); return c }())
	for i, order := range orders[1:] {
		c := httpLines(order...)
		inFormat(c, record.OrderHTTP)
		if diff := cmp.Diff(want, shownHTTP(c)); diff != "" {
			t.Errorf("order %d written otherwise (-want +got):\n%s", i+1, diff)
		}
	}
	// Two listens let go of, the second's lines among those the first's
	// close passes: each close goes right after its own stream's last line.
	listen2 := httpLine{"req", 4, "", `c:{"id":9,"jsonrpc":"2.0","method":"subscriptions/listen"}`}
	two := httpLines(listen, listenR, acked, listen2, httpLine{"resp", 4, "", ""}, lsReq, letGo, lsR, httpLine{"let-go", 4, "", ""}, lsAns, lsEnd)
	inFormat(two, record.OrderHTTP)
	// (Streams are numbered again in request order: the second listen is 2.)
	wantTwo := []string{"request 1", "response 1", "event 1", "close 1 end=session", "request 2", "response 2", "close 2 end=session", "request 3", "response 3", "event 3", "close 3 end=eof"}
	var gotTwo []string
	for _, l := range shownHTTP(two) {
		f := strings.Fields(l)
		gotTwo = append(gotTwo, strings.Join(f[:2], " ")+map[bool]string{true: " " + f[len(f)-1], false: ""}[strings.HasPrefix(l, "close")])
	}
	if diff := cmp.Diff(wantTwo, gotTwo); diff != "" {
		t.Errorf("two let-go closes (-want +got):\n%s", diff)
	}
	// A close the client made while the stream was still in use (a
	// give-up, not a let-go) keeps its place.
	c := httpLines(listen, listenR, acked, lsReq, lsR, lsAns, lsEnd, httpLine{"gave-up", 1, "", ""})
	inFormat(c, record.OrderHTTP)
	if got := shownHTTP(c); got[len(got)-1] != "close 1 end=client" {
		t.Errorf("a give-up moved: %q", got)
	}
}
