package streamablehttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// testCall is the call every body below answers.
var testCall = parseCall([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`))

// response is the JSON-RPC response to testCall, exactly n bytes long.
func response(n int) string {
	const head, tail = `{"jsonrpc":"2.0","id":7,"result":{"pad":"`, `"}}`
	return head + strings.Repeat("p", n-len(head)-len(tail)) + tail
}

// notification is a notifications/message exactly n bytes long.
func notification(n int) string {
	const head, tail = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}`
	return head + strings.Repeat("d", n-len(head)-len(tail)) + tail
}

// sseEvent is a message event carrying data, and its size on the wire.
func sseEvent(data string) string { return "event: message\ndata: " + data + "\n\n" }

func newBodyBase(t *testing.T, body string) *bodyBase {
	t.Helper()
	f, err := New("http://127.0.0.1:1/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	st.slots <- struct{}{} // the body holds a slot, as RoundTrip's do
	b := &bodyBase{rc: io.NopCloser(strings.NewReader(body)), st: st, cancel: func() {}, slot: true}
	b.read.Expire = b.expire
	return b
}

// readAnswer reads a body to its end and returns the error the call gets:
// the JSON-RPC error of the error response the body ends with, or nil
// when it delivered the call's own response.
func readAnswer(t *testing.T, body io.ReadCloser) error {
	t.Helper()
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	s := string(b)
	if i := strings.LastIndex(s, "data: "); i >= 0 {
		s = strings.TrimSpace(s[i+len("data: "):])
	}
	var m struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return fmt.Errorf("undecodable answer %q: %v", s, err)
	}
	if m.Error != nil {
		return m.Error
	}
	return nil
}

// Every bound of a response body at its edge: a JSON body, an event and a
// stream of exactly the bound are delivered; one byte more fails the call
// with ErrLimit naming the bound.
func TestBodyBoundsAtTheEdge(t *testing.T) {
	const max = 1000
	for _, tc := range []struct {
		name string
		body func(string) io.ReadCloser
		size func(n int) string // a body n bytes long, in the bound's measure
		what string
	}{
		{
			name: "json body",
			body: func(s string) io.ReadCloser { return &jsonBody{bodyBase: newBodyBase(t, s), call: testCall, max: max} },
			size: response,
			what: "json body",
		},
		{
			name: "sse event",
			body: func(s string) io.ReadCloser {
				return &sseBody{bodyBase: newBodyBase(t, s), call: testCall, maxEvent: max, maxTotal: 1 << 20}
			},
			size: func(n int) string { return sseEvent(response(n - len(sseEvent("")))) },
			what: "sse event",
		},
		{
			name: "sse stream",
			body: func(s string) io.ReadCloser {
				return &sseBody{bodyBase: newBodyBase(t, s), call: testCall, maxEvent: 1 << 20, maxTotal: max}
			},
			// Two notifications, then the answer: the stream's bytes in all.
			size: func(n int) string {
				notes := sseEvent(notification(200)) + sseEvent(notification(300))
				return notes + sseEvent(response(n-len(notes)-len(sseEvent(""))))
			},
			what: "stream",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			at := tc.size(max)
			if len(at) != max {
				t.Fatalf("test body is %d bytes, want %d", len(at), max)
			}
			if err := readAnswer(t, tc.body(at)); err != nil {
				t.Errorf("%s of exactly %d bytes: the call got %v, want its response", tc.name, max, err)
			}
			err := readAnswer(t, tc.body(tc.size(max+1)))
			if !errors.Is(err, transport.ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("%s over %d bytes", tc.what, max)) {
				t.Errorf("%s of %d bytes: the call got %v, want ErrLimit for the %s", tc.name, max+1, err, tc.what)
			}
		})
	}
}

// A JSON body that is not the call's response fails the call at once with
// errResponseMismatch: a response to another id, a request or notification,
// a batch, no JSON at all. The call's own response, result or error,
// passes.
func TestJSONBodyMustAnswerTheCall(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"no"}}`, true},
		{` {"jsonrpc":"2.0", "id": 7, "result":{}} `, true},
		{`{"jsonrpc":"2.0","id":8,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":"7","result":{}}`, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":7}`, false},
		{`[{"jsonrpc":"2.0","id":7,"result":{}}]`, false},
		{`not json`, false},
		{``, false},
	} {
		leakcheck.Check(t)
		err := readAnswer(t, &jsonBody{bodyBase: newBodyBase(t, tc.body), call: testCall, max: 1 << 20})
		switch {
		case tc.ok && errors.Is(err, errResponseMismatch):
			t.Errorf("body %s: the call got %v, want the body", tc.body, err)
		case !tc.ok && !errors.Is(err, errResponseMismatch):
			t.Errorf("body %s: the call got %v, want errResponseMismatch", tc.body, err)
		}
	}
}

// A body that is not a call's answer (an error body, a JSON body to a
// notification) is bounded by MaxJSONBytes too, at its edge: exactly the
// bound is read whole, in chunks of any size; one byte more is ErrLimit
// naming the body, and nothing past the bound is handed out.
func TestPlainBodyBoundAtTheEdge(t *testing.T) {
	const max = 1000
	for _, chunk := range []int{1, 7, max, 4 << 10} {
		for _, n := range []int{max, max + 1} {
			leakcheck.Check(t)
			body := strings.Repeat("e", n)
			p := &plainBody{bodyBase: newBodyBase(t, body), max: max, what: "error body"}
			var got []byte
			var err error
			buf := make([]byte, chunk)
			for err == nil {
				var k int
				k, err = p.Read(buf)
				got = append(got, buf[:k]...)
			}
			p.Close()
			if n == max {
				if err != io.EOF || len(got) != max {
					t.Errorf("error body of exactly %d bytes, read %d at a time: %d bytes, %v; want all of it and EOF", max, chunk, len(got), err)
				}
				continue
			}
			if !errors.Is(err, transport.ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("error body over %d bytes", max)) {
				t.Errorf("error body of %d bytes, read %d at a time: error %v, want ErrLimit for the error body", n, chunk, err)
			}
			if len(got) > max {
				t.Errorf("error body of %d bytes, read %d at a time: %d bytes handed out, want at most %d", n, chunk, len(got), max)
			}
		}
	}
}

// FuzzSSEBody checks a call's response stream against any server bytes,
// read in any chunking: the go-sdk is handed only whole events, each within
// MaxEventBytes; it reads from them the messages it reads from what the
// server sent, in order, up to the call's answer or to where a bound cut
// the stream; and the call always gets an answer, its own or an error
// response (a stream that ends or passes a bound first cannot leave it
// waiting).
func FuzzSSEBody(f *testing.F) {
	for _, seed := range []string{
		sseEvent(response(60)),
		sseEvent(notification(120)) + sseEvent(response(60)),
		"event:  message \ndata: \u00a0{\"jsonrpc\":\"2.0\",\"id\":7.0,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"ID\":7,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}} trailing\n\n",
		"data: {\"id\":7,\"result\":{}}\n\n",
		"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n",
		sseEvent(notification(120)),
		"data: " + strings.Repeat("x", 300) + "\n\n",
		": comment\n\nretry: 10\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n",
		"event: prime\nid: s_0\ndata: \n\nevent: message\nid: s_1\ndata: " + response(60) + "\n\n" + sseEvent(notification(100)),
	} {
		f.Add([]byte(seed), 200, 7)
		f.Add([]byte(seed), 511, 4095) // up to 527 bytes in one read
	}
	f.Fuzz(func(t *testing.T, in []byte, maxEvent, chunk int) {
		maxEvent = 16 + abs(maxEvent)%512
		chunk = 1 + abs(chunk)%4096
		b := newBodyBase(t, "")
		b.rc = io.NopCloser(&chunked{data: in, n: chunk})
		body := &sseBody{bodyBase: b, call: testCall, maxEvent: int64(maxEvent), maxTotal: 1 << 20}
		out, err := io.ReadAll(body)
		body.Close()
		got, perr := sse.Parse(out)
		if perr != nil {
			t.Fatalf("what the go-sdk reads does not parse: %v\n%q", perr, out)
		}
		read, answered := sdkReading(got)
		if !answered {
			t.Fatalf("the call got no answer from %q (read error %v)", out, err)
		}
		// A read error (a bound crossed) may follow the answer: the go-sdk
		// discards what follows it.
		var p sse.Parser
		var sent []sse.Event
		p.Feed(in, func(e sse.Event) error { sent = append(sent, e); return nil })
		want, _ := sdkReading(sent)
		// The last message is the body's error answer where the stream
		// was cut (a bound, an end before the answer).
		ours := !slices.Contains(want, read[len(read)-1])
		for i, e := range got {
			if len(e.Data) > maxEvent && !(ours && i == len(got)-1) {
				t.Fatalf("event %d handed over holds %d bytes of data, over the bound %d", i, len(e.Data), maxEvent)
			}
		}
		if ours {
			// What the go-sdk read before it is what it would have read of
			// the server's stream up to there.
			read = read[:len(read)-1]
			if len(read) > len(want) {
				t.Fatalf("the go-sdk reads %q, more than the server sent: %q", read, want)
			}
			want = want[:len(read)]
		}
		if diff := cmp.Diff(want, read, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("messages the go-sdk reads (-from the server's stream +from the body):\n%s\nin: %q", diff, in)
		}
	})
}

// sdkReading is what the go-sdk reads from a call's events as its own
// transport reads them (sse.SDKView, then its decoder): the data of each
// message, in order, up to the call's answer, and whether it came. (A
// message its decoder refuses fails its connection; it is listed, and so
// is what follows.)
func sdkReading(events []sse.Event) (read []string, answered bool) {
	for _, e := range events {
		v, ok := sse.SDKView(e)
		if !ok || len(v.Data) == 0 || v.Name != "" && v.Name != "message" {
			continue
		}
		read = append(read, string(v.Data))
		if m, ok := decoded(v.Data).(*jsonrpc.Response); ok && m.ID == testCall.jid {
			return read, true
		}
	}
	return read, false
}

// decoded is the go-sdk's decoding of data, nil where it refuses it.
func decoded(data []byte) jsonrpc.Message {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil
	}
	return msg
}

// chunked reads data n bytes at a time.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
