package cassette

import (
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
)

// A FaultKind names a fault replay injects into a recorded session.
type FaultKind string

// The faults replay can inject. Each acts on one message of the cassette,
// named by its number (Message.Number, the #N of mcprig inspect), so that
// one recorded real session exercises a client's failure paths. A
// recorded tools/call is still never answered twice.
const (
	// FaultDrop (Streamable HTTP) breaks the response stream that carries
	// message N, a server message on an event stream, just before its
	// event: the events before it went out. On 2025-11-25 and earlier, a
	// client that resumes the stream (GET with the Last-Event-ID of an
	// event it got) is answered with the rest of the stream, from message
	// N, as a server with an event store would; message N is served once.
	// Where the recording allows no resumption (2026-07-28, or no event id
	// before the cut), the reply is lost, as it would be live.
	//
	// Message N may also be the answer to a task's poll (tasks/get) that
	// the server sent as a JSON body, not on a stream: the connection
	// breaks once the poll is written, before its answer, and the poll's
	// reply is lost (its outcome unknown to the transport). Polling a task
	// is a read, safe to repeat: the same poll sent again is answered with
	// the recorded state, once.
	FaultDrop FaultKind = "drop"
	// FaultDelay holds message N, a server message, Delay longer than
	// replay would: messages released meanwhile go out first.
	FaultDelay FaultKind = "delay"
	// FaultEnd ends the session at message N: neither it nor anything
	// recorded after it is served. At the message level the connection
	// breaks (a *RecordedError of class transport: the calls in flight have an
	// unknown outcome, as when a server dies mid-call); at the HTTP level
	// open streams end, a request whose response headers N precedes gets
	// no response (its connection breaks once it is written), and every
	// request from then on is answered 404 Not Found, as for a session the
	// server forgot. Either way the call that N answers fails with its
	// outcome unknown: streamablehttp reports a resumption refused 404 as
	// the call's dropped stream.
	FaultEnd FaultKind = "end"
	// FaultStatus (Streamable HTTP) answers the request carrying message
	// N, a client message, with the HTTP status Status (401 with a Bearer
	// invalid_token challenge, 403 with insufficient_scope, or 5xx)
	// instead of its recorded answer, once: the recorded request is not
	// served, so a client that sends it again (as it may a listing after
	// re-authorizing) gets the recording's answer.
	FaultStatus FaultKind = "status"
	// FaultFail fails a task (the tasks extension) at one of its recorded
	// states: message N, the answer to a poll (tasks/get), is served as the
	// task failed (status "failed", its error and statusMessage naming the
	// fault) in place of the recorded state, at both levels. The task's
	// later requests (its polls, tasks/update, tasks/cancel) are then not
	// reported unused. fail@tasks/get#K fails it at the answer to the K-th
	// recorded poll. Polling need not match: a poll answered with the same
	// state as the poll before it is never served, that poll answering in
	// its place. So K names the first poll of a state: in a recording
	// whose polls 1 and 2 are both "working", fail@tasks/get (K = 1) fails
	// the task while it works, and fail@tasks/get#2 is refused, the
	// refusal naming the poll to use. The same holds for drop@tasks/get#K.
	FaultFail FaultKind = "fail"
)

// A Fault is one fault replay injects. It acts on the message numbered
// Message, or, when Method is set, on the request Method names (and the
// answer to it): the Nth request of Method whose name is Name, so that it
// survives a change of revision, which numbers messages otherwise.
//
// Its text form, which ParseFault reads and String writes, is the one
// grammar of faults, shared with package fakeserver's: KIND@TARGET[:ARG],
// TARGET being a message number N or a request METHOD[=NAME][#NTH].
// FAULTS.md, at the repository's root, lists every kind:
//
//	drop@12                          break the stream before message 12
//	delay@13:200ms                   hold message 13 200ms longer
//	end@9                            end the session at message 9
//	status@12:503                    answer the request of message 12 with 503
//	end@tools/call=get_weather#2     the server dies under the second call of get_weather
//	drop@tools/call=lookup           the stream of lookup's first call breaks before its answer
//	delay@resources/read=docs://readme:1s   its answer comes a second late
//	status@tools/list:401            the first tools/list is answered 401
//	fail@tasks/get                   the task fails at its first recorded state
//	drop@tasks/get                   the first poll's reply is lost
//
// A request is named by its method and its name: params.name for
// tools/call and prompts/get, params.uri for resources/read,
// resources/subscribe and resources/unsubscribe, params.ref's name or uri
// for completion/complete; without =NAME any request of the method
// counts. NTH counts from 1 (the default) the requests of the session in
// order; the continuations of a multi round-trip request (2026-07-28's
// input-required rounds) belong to the request they continue, so that
// "the second call of get_weather" is the same call on both revisions.
// status acts on the request itself; drop, delay and end on its answer
// (the answer to its last round). A NAME holding ':' or '#' is written as
// it is: ARG is after the last ':', and NTH after a last '#' followed by
// digits only (write #1 after a name that ends in '#' and digits).
type Fault struct {
	Kind    FaultKind
	Message int           // the message it acts on: Message.Number, from 1; zero when Method is set
	Method  string        // the request it acts on, by method (and Name, Nth), instead of Message
	Name    string        // with Method: the request's name; empty for any request of Method
	Nth     int           // with Method: which request of Method and Name, from 1; zero means 1
	Delay   time.Duration // FaultDelay: how much longer
	Status  int           // FaultStatus: 401, 403 or 500 to 599
}

// ParseFault reads a fault's text form (see Fault). A fault that does not
// read wraps transport.ErrBadFault.
func ParseFault(s string) (Fault, error) {
	f, err := format.ParseFault(s)
	if err != nil {
		return Fault{}, err
	}
	return Fault{Kind: FaultKind(f.Kind), Message: f.Message, Method: f.Method, Name: f.Name, Nth: f.Nth, Delay: f.Delay, Status: f.Status}, nil
}

// String returns the fault's text form.
func (f Fault) String() string { return f.replay().String() }

// replay returns f as replay takes it.
func (f Fault) replay() format.Fault {
	return format.Fault{Kind: format.FaultKind(f.Kind), Message: f.Message, Method: f.Method, Name: f.Name, Nth: f.Nth, Delay: f.Delay, Status: f.Status}
}

// replayFaults returns faults as replay takes them.
func replayFaults(faults []Fault) []format.Fault {
	if faults == nil {
		return nil
	}
	out := make([]format.Fault, len(faults))
	for i, f := range faults {
		out[i] = f.replay()
	}
	return out
}
