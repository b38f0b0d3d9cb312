package cassette

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/looprig/mcp/transport"
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
	FaultDrop FaultKind = "drop"
	// FaultDelay holds message N, a server message, Delay longer than
	// replay would: messages released meanwhile go out first.
	FaultDelay FaultKind = "delay"
	// FaultEnd ends the session at message N: neither it nor anything
	// recorded after it is served. At the message level the connection
	// breaks (a *RecordedError of class broken: the calls in flight have an
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
)

// A Fault is one fault replay injects. Its text form, which ParseFault
// reads and String writes, is KIND@N[:ARG]:
//
//	drop@12          break the stream before message 12
//	delay@13:200ms   hold message 13 200ms longer
//	end@9            end the session at message 9
//	status@12:503    answer the request of message 12 with 503
type Fault struct {
	Kind    FaultKind
	Message int           // the message it acts on: Message.Number, from 1
	Delay   time.Duration // FaultDelay: how much longer
	Status  int           // FaultStatus: 401, 403 or 500 to 599
}

// ErrBadFault is returned (inside an *OptionsError) for a fault that
// cannot be injected: an unknown kind, a message the cassette does not
// have or that is not of the kind the fault acts on, a transport the
// fault does not apply to. ParseFault returns it wrapped too.
var ErrBadFault = errors.New("invalid fault")

// ParseFault reads a fault's text form (see Fault).
func ParseFault(s string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("cassette: fault %q: %w: %s (want KIND@N[:ARG]: drop@N, delay@N:DURATION, end@N, status@N:CODE)", s, ErrBadFault, why)
	}
	kind, rest, ok := strings.Cut(s, "@")
	if !ok {
		return bad("no @N")
	}
	f := Fault{Kind: FaultKind(kind)}
	num, arg, hasArg := strings.Cut(rest, ":")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return bad("N must be a message number from 1")
	}
	f.Message = n
	switch f.Kind {
	case FaultDrop, FaultEnd:
		if hasArg {
			return bad("takes no argument")
		}
	case FaultDelay:
		d, err := time.ParseDuration(arg)
		if !hasArg || err != nil || d <= 0 {
			return bad("delay takes a positive duration")
		}
		f.Delay = d
	case FaultStatus:
		code, err := strconv.Atoi(arg)
		if !hasArg || err != nil || !okStatus(code) {
			return bad("status takes 401, 403 or a code from 500 to 599")
		}
		f.Status = code
	default:
		return bad("unknown kind")
	}
	return f, nil
}

func okStatus(code int) bool { return code == 401 || code == 403 || code >= 500 && code <= 599 }

// String returns the fault's text form.
func (f Fault) String() string {
	s := string(f.Kind) + "@" + strconv.Itoa(f.Message)
	switch f.Kind {
	case FaultDelay:
		s += ":" + f.Delay.String()
	case FaultStatus:
		s += ":" + strconv.Itoa(f.Status)
	}
	return s
}

// faults is where a player's faults act, by line.
type faults struct {
	drop    map[int]bool          // event lines before which the stream breaks
	delay   map[int]time.Duration // server lines held longer
	status  map[int]int           // request lines answered with a status
	end     int                   // the line at which the session ends; len(lines) for none
	endText string                // the fault, for errors
}

// planFaults checks o.Faults against c and places them.
func planFaults(c *Cassette, infos []lineInfo, o *Options) (*faults, error) {
	fs := &faults{drop: map[int]bool{}, delay: map[int]time.Duration{}, status: map[int]int{}, end: len(c.Interactions)}
	if len(o.Faults) == 0 {
		return fs, nil
	}
	var lines []int // message number - 1 → line index
	for i := range infos {
		if infos[i].canon != nil {
			lines = append(lines, i)
		}
	}
	isHTTP := c.Kind() == transport.KindStreamableHTTP
	for k, f := range o.Faults {
		bad := func(format string, args ...any) error {
			return &OptionsError{Option: "Faults[" + strconv.Itoa(k) + "]", Value: f.String(), Err: fmt.Errorf("%w: "+format, append([]any{ErrBadFault}, args...)...)}
		}
		if f.Message < 1 || f.Message > len(lines) {
			return nil, bad("the cassette has %d messages", len(lines))
		}
		i := lines[f.Message-1]
		in := &c.Interactions[i]
		from := side(in)
		switch f.Kind {
		case FaultDrop:
			if !isHTTP || in.Kind != KindEvent {
				return nil, bad("message %d is not an event of a Streamable HTTP response stream", f.Message)
			}
			fs.drop[i] = true
		case FaultDelay:
			if from != FromServer || f.Delay <= 0 {
				return nil, bad("message %d is not a server message, or the delay is not positive", f.Message)
			}
			fs.delay[i] = f.Delay
		case FaultEnd:
			if i < fs.end {
				fs.end, fs.endText = i, f.String()
			}
		case FaultStatus:
			if !isHTTP || in.Kind != KindRequest || !okStatus(f.Status) {
				return nil, bad("message %d is not the body of a Streamable HTTP request, or the status is not 401, 403 or 5xx", f.Message)
			}
			fs.status[i] = f.Status
		default:
			return nil, bad("unknown kind")
		}
	}
	return fs, nil
}
