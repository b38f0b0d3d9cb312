package format

import (
	"strconv"
	"time"

	"github.com/looprig/mcp/internal/faultspec"
	"github.com/looprig/mcp/transport"
)

// A FaultKind names a fault replay injects: package cassette's FaultKind,
// as replay takes it.
type FaultKind string

// The faults replay can inject; cassette's FaultDrop, FaultDelay, … say
// what each does.
const (
	FaultDrop   FaultKind = "drop"
	FaultDelay  FaultKind = "delay"
	FaultEnd    FaultKind = "end"
	FaultStatus FaultKind = "status"
	FaultFail   FaultKind = "fail"
)

// A Fault is one fault replay injects: package cassette's Fault, as
// replay takes it (replay.Config.Faults). It acts on the message numbered
// Message, or, when Method is set, on the Nth request of Method whose
// name is Name. Its text form is cassette.Fault's.
type Fault struct {
	Kind    FaultKind
	Message int           // the message it acts on: Message.Number, from 1; zero when Method is set
	Method  string        // the request it acts on, by method (and Name, Nth), instead of Message
	Name    string        // with Method: the request's name; empty for any request of Method
	Nth     int           // with Method: which request of Method and Name, from 1; zero means 1
	Delay   time.Duration // FaultDelay: how much longer
	Status  int           // FaultStatus: 401, 403 or 500 to 599
}

// The targets and arguments of replay's kinds.
var (
	request = faultspec.Target{Need: faultspec.Required, Form: faultspec.Request, Name: "TARGET"}
	delay   = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Duration, Name: "DURATION"}
	status  = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Number, Name: "STATUS",
		In: []faultspec.Range{{Min: 401, Max: 401}, {Min: 403, Max: 403}, {Min: 500, Max: 599}}}
)

// Where replay's kinds act, for FAULTS.md.
const (
	replayBoth = "replay: message and HTTP level"
	replayHTTP = "replay: HTTP level"
)

// FaultGrammar is the table of replay's kinds: each acts on a TARGET, a
// message number or a request; delay and status take an ARG.
var FaultGrammar = &faultspec.Grammar{Owner: "cassette", Class: transport.ErrBadFault, Kinds: []faultspec.Kind{
	{Name: string(FaultDrop), Target: request, Where: replayHTTP + " (an event, or a poll's JSON answer)"},
	{Name: string(FaultDelay), Target: request, Arg: delay, Where: replayBoth + " (a server message)"},
	{Name: string(FaultEnd), Target: request, Where: replayBoth},
	{Name: string(FaultStatus), Target: request, Arg: status, Where: replayHTTP + " (a client request)"},
	{Name: string(FaultFail), Target: request, Where: replayBoth + " (a poll's answer)"},
}}

// ParseFault reads a fault's text form (see cassette.Fault).
func ParseFault(s string) (Fault, error) {
	sp, err := FaultGrammar.Parse(s)
	if err != nil {
		return Fault{}, err
	}
	return Fault{Kind: FaultKind(sp.Kind), Message: sp.Message, Method: sp.Method, Name: sp.Name, Nth: sp.Nth,
		Delay: sp.Duration, Status: sp.Number}, nil
}

// FaultStatusOK reports whether a status fault may answer with code.
func FaultStatusOK(code int) bool { return status.Allows(code) }

// String returns the fault's text form.
func (f Fault) String() string {
	target := faultspec.RequestTarget(f.Message, f.Method, f.Name, f.Nth)
	switch f.Kind {
	case FaultDelay:
		return faultspec.Format(string(f.Kind), target, f.Delay.String(), true)
	case FaultStatus:
		return faultspec.Format(string(f.Kind), target, strconv.Itoa(f.Status), true)
	}
	return faultspec.Format(string(f.Kind), target, "", false)
}
