package fakeserver

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/looprig/mcp/internal/faultspec"
	"github.com/looprig/mcp/transport"
)

// A FaultKind names a scripted misbehaviour.
type FaultKind string

// The fault kinds. Those marked (stdio) act on the process and work only in
// a child started through [Main]; [New] rejects them. Those marked (http)
// act on HTTP requests: they work when the server is served over HTTP
// ([Server.HTTPHandler], [Server.StartHTTP], --http). A path that cannot
// act on a fault refuses it (see [Path]).
const (
	// FaultDelay sleeps Delay before running Tool (in-process, it ends early
	// when the call is cancelled).
	FaultDelay FaultKind = "delay"
	// FaultHang never replies to a call of Tool: the handler waits until the
	// call is cancelled or the fake is closed ([Server.Close], or its HTTP
	// handler's Close).
	FaultHang FaultKind = "hang"
	// FaultError makes Tool's handler return an error with Message
	// (default "scripted failure"); the caller gets an isError result.
	FaultError FaultKind = "error"
	// FaultPanic makes Tool's handler panic with Message (default
	// "scripted panic"); the caller gets an isError result.
	FaultPanic FaultKind = "panic"
	// FaultOversize makes Tool return a text result of Bytes bytes. The
	// fake server's own result bound is raised to let it through, so that
	// the client's limits are what is tested.
	FaultOversize FaultKind = "oversize"
	// FaultFloodNotifications sends Count notifications/message (level
	// info, logger "fakeserver") before it runs Tool, on the call's
	// session: a client that asked for log messages at info or below (the
	// client package's default level) gets every one.
	FaultFloodNotifications FaultKind = "flood-notifications"
	// FaultEnv adds the tool "env", which returns the process environment
	// as sorted KEY=VALUE lines.
	FaultEnv FaultKind = "env"
	// FaultCrash (stdio) exits with Code after a call of Tool is received
	// and counted, before any reply.
	FaultCrash FaultKind = "crash"
	// FaultMalformed (stdio) writes a line that is not JSON to stdout before
	// replying to a call of Tool.
	FaultMalformed FaultKind = "malformed"
	// FaultFloodStderr (stdio) writes Bytes bytes to stderr: at start, or
	// on each call of Tool if Tool is set.
	FaultFloodStderr FaultKind = "flood-stderr"
	// FaultIgnoreEOF (stdio) keeps serving after stdin closes, until a
	// signal ends the process.
	FaultIgnoreEOF FaultKind = "ignore-eof"
	// FaultIgnoreSIGTERM (stdio) records SIGTERM (see --stop-file) and
	// otherwise ignores it. It needs a POSIX system: on Windows, where a
	// child is ended by its job object and gets no SIGTERM, it is refused
	// (see [transport.ErrBadFault]).
	FaultIgnoreSIGTERM FaultKind = "ignore-sigterm"
	// FaultGrandchild (stdio) starts a grandchild process at start that
	// sleeps until killed, in the same process group, or with Setsid in a
	// session and group of its own (as a daemon leaves its parent's); its
	// pid is written to --grandchild-pid-file. With Setsid it needs a POSIX
	// system, and is refused on Windows, which has no sessions (without,
	// the grandchild is in the child's job object there).
	FaultGrandchild FaultKind = "grandchild"

	// FaultDrop (http) cuts the response stream of the first call of Tool
	// after Events server-sent events that carry a message (0 cuts right
	// before the first, normally the reply; the tool has run by then),
	// after sending retry: 10. A priming event, which carries no message,
	// always goes through: on a 2025-11-25 session it gives the client the
	// event id to resume from at once with a GET carrying Last-Event-ID,
	// and the committed reply comes from the event store. 2026-07-28 and
	// stateless serving send no priming event and keep no events: the
	// reply is lost, and a client must not send the call again.
	FaultDrop FaultKind = "drop"
	// FaultDropNoID (http) is FaultDrop with every id: line taken out of the
	// stream first, so the client has no event id to resume from.
	FaultDropNoID FaultKind = "drop-no-id"
	// FaultDelayHeaders (http) holds a request for Delay before it reaches
	// the protocol, so its response headers come late: every POST, or only
	// calls of Tool. A request whose client gave up meanwhile is dropped
	// unserved (the tool does not run).
	FaultDelayHeaders FaultKind = "delay-headers"
	// FaultUnauthorized (http) answers 401 with a WWW-Authenticate: Bearer
	// challenge (error="invalid_token"): every request, or only calls of
	// Tool.
	FaultUnauthorized FaultKind = "unauthorized"
	// FaultForbidden (http) answers 403 with a WWW-Authenticate: Bearer
	// challenge (error="insufficient_scope"): every request, or only calls
	// of Tool.
	FaultForbidden FaultKind = "forbidden"
	// FaultGone (http) ends the session when a call of Tool arrives and
	// answers it 404 Not Found, as for a session the server forgot. The
	// tool does not run.
	FaultGone FaultKind = "gone"
	// FaultServerError (http) answers with a server error of status Status
	// (500 to 599; 500 when zero): every request, or only calls of Tool.
	// The request never reaches the protocol: the tool does not run.
	FaultServerError FaultKind = "server-error"
	// FaultNoGet (http) answers every GET 405 Method Not Allowed: the server
	// offers no standalone stream (and no resumption).
	FaultNoGet FaultKind = "no-get"
	// FaultRedirect (http) answers with a redirect of status Status (307
	// when zero) to the same path on the other origin (see
	// HTTPOptions.OtherOrigin): every request, or only calls of Tool.
	FaultRedirect FaultKind = "redirect"
	// FaultForeignEndpoint (http, legacy SSE) makes the endpoint event name
	// the session's URL on the other origin instead of this one.
	FaultForeignEndpoint FaultKind = "foreign-endpoint"
)

// A Fault is one scripted misbehaviour. Its text form, accepted by
// [ParseFault] and the --fault flag and produced by String, is
//
//	KIND[@TOOL][:ARG]
//
// the one grammar of faults, shared with package cassette's. FAULTS.md, at
// the repository's root, lists every kind, where it acts, its target and
// its argument. For example:
//
//	delay@lookup:200ms          error@lookup:backend down
//	oversize@lookup:20000000    crash@lookup:7
//	flood-stderr:65536          grandchild:setsid
//	drop@lookup:0               redirect:308
//	task-fail@lookup:disk full  skill-digest@pdf-processing
//
// A skill kind names a skill where the others name a tool. ARG begins at
// the first ':' after TOOL, so a MESSAGE may hold ':'. KIND=TOOL, the
// spelling before 0.2.0, is read as KIND@TOOL.
type Fault struct {
	Kind FaultKind
	// Tool is the tool the fault applies to (a skill for the skill kinds);
	// empty for process-wide kinds.
	Tool string
	// Delay is FaultDelay's, FaultDelayHeaders' and FaultTaskExpire's
	// duration.
	Delay time.Duration
	// Code is FaultCrash's exit code; zero means 1.
	Code int
	// Bytes is the size for FaultOversize and FaultFloodStderr.
	Bytes int
	// Count is the number of notifications FaultFloodNotifications sends,
	// and of polls FaultTaskPollError refuses.
	Count int
	// Message is FaultError's error, FaultTaskFail's and FaultPanic's
	// panic value; empty
	// means the kind's default.
	Message string
	// Events is the number of server-sent events FaultDrop and
	// FaultDropNoID let through before the cut.
	Events int
	// Setsid makes FaultGrandchild's grandchild leave the process group.
	Setsid bool
	// Status is FaultRedirect's status code (301, 302, 303, 307 or 308;
	// zero means 307) and FaultServerError's (500 to 599; zero means 500).
	Status int
}

// ParseFault parses the text form of a fault (see [Fault]). A fault that
// does not parse, or cannot act on this system, wraps
// [transport.ErrBadFault].
func ParseFault(s string) (Fault, error) {
	sp, err := grammar.Parse(s)
	if err != nil {
		return Fault{}, err
	}
	f := Fault{Kind: FaultKind(sp.Kind), Tool: sp.Target}
	if sp.HasArg {
		f.setArg(kinds[f.Kind].spec.Arg, sp)
	}
	if err := f.checkSystem(runtime.GOOS); err != nil {
		return Fault{}, fmt.Errorf("fakeserver: fault %q: %w", s, err)
	}
	return f, nil
}

// setArg sets the field a's ARG fills from sp.
func (f *Fault) setArg(a faultspec.Arg, sp faultspec.Spec) {
	switch a.Name {
	case argDuration:
		f.Delay = sp.Duration
	case argBytes:
		f.Bytes = sp.Number
	case argCount:
		f.Count = sp.Number
	case argCode:
		f.Code = sp.Number
	case argEvents:
		f.Events = sp.Number
	case argStatus:
		f.Status = sp.Number
	case argMessage:
		f.Message = sp.Arg
	case argSetsid:
		f.Setsid = true
	}
}

// arg returns the text of f's ARG, and whether it is written.
func (f Fault) arg() (string, bool) {
	a := kinds[f.Kind].spec.Arg
	switch a.Name {
	case argDuration:
		return f.Delay.String(), true
	case argBytes:
		return strconv.Itoa(f.Bytes), true
	case argCount:
		return strconv.Itoa(f.Count), true
	case argEvents:
		return strconv.Itoa(f.Events), true
	case argCode:
		return strconv.Itoa(f.Code), f.Code != 0
	case argStatus:
		return strconv.Itoa(f.Status), f.Status != 0
	case argMessage:
		return f.Message, f.Message != ""
	case argSetsid:
		return argSetsid, f.Setsid
	}
	return "", false
}

// check validates a fault given as a value, as [ParseFault] would its
// text form, and the fields its kind does not take.
func (f Fault) check() error {
	arg, hasArg := f.arg()
	if _, err := grammar.Check(string(f.Kind), f.Tool, arg, hasArg); err != nil {
		return err
	}
	var why string
	switch a := kinds[f.Kind].spec.Arg.Name; {
	case f.Delay < 0 || f.Bytes < 0 || !codeArg.Allows(f.Code) || f.Events < 0 || f.Count < 0:
		why = "negative or out-of-range parameter"
	case f.Status != 0 && a != argStatus:
		why = "Status is for server-error and redirect only"
	case f.Setsid && a != argSetsid:
		why = "setsid is for grandchild only"
	}
	if why != "" {
		return fmt.Errorf("fakeserver: fault %q: %w: %s", f, transport.ErrBadFault, why)
	}
	if err := f.checkSystem(runtime.GOOS); err != nil {
		return fmt.Errorf("fakeserver: fault %q: %w", f, err)
	}
	return nil
}

// checkSystem refuses a fault that cannot act on the system goos: on
// Windows those that need POSIX sessions or signals. It is apart from
// check so that the refusals are tested on every system.
func (f Fault) checkSystem(goos string) error {
	if goos != "windows" {
		return nil
	}
	var why string
	switch {
	case f.Kind == FaultIgnoreSIGTERM:
		why = "a child on Windows is ended by its job object, with no SIGTERM to ignore"
	case f.Kind == FaultGrandchild && f.Setsid:
		why = "Windows has no sessions to leave the child's for"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s needs a POSIX system (%s): %w", transport.ErrBadFault, f, why, errors.ErrUnsupported)
}

// String returns the fault's text form, KIND[@TOOL][:ARG];
// ParseFault(f.String()) == f.
func (f Fault) String() string {
	arg, hasArg := f.arg()
	return faultspec.Format(string(f.Kind), f.Tool, arg, hasArg)
}

// HTTPOnly reports whether f acts only when the fake server is served over
// HTTP (the kinds marked (http) in [FaultKind]).
func (f Fault) HTTPOnly() bool { return kinds[f.Kind].http }

// StdioOnly reports whether f acts on the process, and so works only in a
// stdio child (the kinds marked (stdio) in [FaultKind]).
func (f Fault) StdioOnly() bool { return kinds[f.Kind].stdio }

func (f Fault) message(def string) string {
	if f.Message != "" {
		return f.Message
	}
	return def
}
