package fakeserver

import (
	"errors"
	"fmt"
	"github.com/looprig/mcp/transport"
	"runtime"
	"strconv"
	"strings"
	"time"
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
//	KIND[=TOOL][:ARG]
//
// where ARG is the fault's parameter:
//
//	delay=TOOL:DURATION     e.g. delay=lookup:200ms
//	hang=TOOL
//	error=TOOL[:MESSAGE]    e.g. error=lookup:backend down
//	panic=TOOL[:MESSAGE]
//	oversize=TOOL:BYTES     e.g. oversize=lookup:20000000
//	flood-notifications=TOOL:COUNT e.g. flood-notifications=lookup:5000
//	env
//	crash=TOOL[:CODE]       CODE defaults to 1
//	malformed=TOOL
//	flood-stderr:BYTES      at start; flood-stderr=TOOL:BYTES on each call
//	ignore-eof
//	ignore-sigterm
//	grandchild[:setsid]
//	drop=TOOL:EVENTS        e.g. drop=lookup:0
//	drop-no-id=TOOL:EVENTS
//	delay-headers[=TOOL]:DURATION
//	unauthorized[=TOOL]
//	forbidden[=TOOL]
//	gone=TOOL
//	server-error[=TOOL][:STATUS] STATUS defaults to 500
//	no-get
//	redirect[=TOOL][:STATUS] STATUS defaults to 307
//	foreign-endpoint
//	task=TOOL               the tasks extension's kinds (tasks.go)
//	task-required=TOOL
//	task-fail=TOOL[:MESSAGE]
//	task-input=TOOL
//	task-expire:DURATION    e.g. task-expire:50ms
//	task-poll-error=TOOL:COUNT
//	skill-digest=SKILL      the skills extension's kinds (skills.go)
//	skill-size=SKILL
//	skill-frontmatter=SKILL
//	skill-changed=SKILL
type Fault struct {
	Kind FaultKind
	// Tool is the tool the fault applies to; empty for process-wide kinds.
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

// arity says whether a kind takes a tool and what argument it takes.
type arity struct {
	tool  int    // 0: none, 1: optional, 2: required
	arg   string // "", "duration", "bytes", "code", "message"
	argOK int    // 0: none, 1: optional, 2: required
	stdio bool
	http  bool
}

var kinds = map[FaultKind]arity{
	FaultDelay:              {tool: 2, arg: "duration", argOK: 2},
	FaultHang:               {tool: 2},
	FaultError:              {tool: 2, arg: "message", argOK: 1},
	FaultPanic:              {tool: 2, arg: "message", argOK: 1},
	FaultOversize:           {tool: 2, arg: "bytes", argOK: 2},
	FaultFloodNotifications: {tool: 2, arg: "count", argOK: 2},
	FaultEnv:                {},
	FaultCrash:              {tool: 2, arg: "code", argOK: 1, stdio: true},
	FaultMalformed:          {tool: 2, stdio: true},
	FaultFloodStderr:        {tool: 1, arg: "bytes", argOK: 2, stdio: true},
	FaultIgnoreEOF:          {stdio: true},
	FaultIgnoreSIGTERM:      {stdio: true},
	FaultGrandchild:         {arg: "setsid", argOK: 1, stdio: true},

	FaultDrop:            {tool: 2, arg: "events", argOK: 2, http: true},
	FaultDropNoID:        {tool: 2, arg: "events", argOK: 2, http: true},
	FaultDelayHeaders:    {tool: 1, arg: "duration", argOK: 2, http: true},
	FaultUnauthorized:    {tool: 1, http: true},
	FaultForbidden:       {tool: 1, http: true},
	FaultGone:            {tool: 2, http: true},
	FaultServerError:     {tool: 1, arg: "status", argOK: 1, http: true},
	FaultNoGet:           {http: true},
	FaultRedirect:        {tool: 1, arg: "status", argOK: 1, http: true},
	FaultForeignEndpoint: {http: true},
}

// ParseFault parses the text form of a fault (see [Fault]).
func ParseFault(s string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("fakeserver: fault %q: %w: %s", s, transport.ErrBadFault, why)
	}
	var f Fault
	head, arg, hasArg := s, "", false
	if i := strings.IndexAny(s, "=:"); i >= 0 {
		head = s[:i]
		rest := s[i:]
		if rest[0] == '=' {
			tool, a, ok := strings.Cut(rest[1:], ":")
			f.Tool, arg, hasArg = tool, a, ok
		} else {
			arg, hasArg = rest[1:], true
		}
	}
	f.Kind = FaultKind(head)
	a, ok := kinds[f.Kind]
	if !ok {
		return bad("unknown kind")
	}
	if hasArg && a.argOK == 0 {
		return bad("takes no argument")
	}
	if hasArg {
		switch a.arg {
		case "duration":
			d, err := time.ParseDuration(arg)
			if err != nil {
				return bad(err.Error())
			}
			f.Delay = d
		case "bytes":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return bad("bytes: " + err.Error())
			}
			f.Bytes = n
		case "code":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return bad("code: " + err.Error())
			}
			f.Code = n
		case "count":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return bad("count: " + err.Error())
			}
			f.Count = n
		case "message":
			f.Message = arg
		case "events":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return bad("events: " + err.Error())
			}
			f.Events = n
		case "status":
			n, err := strconv.Atoi(arg)
			if err != nil {
				return bad("status: " + err.Error())
			}
			f.Status = n
		case "setsid":
			if arg != "setsid" {
				return bad(`want no argument or "setsid"`)
			}
			f.Setsid = true
		}
	} else if a.argOK == 2 {
		return bad("missing :" + strings.ToUpper(a.arg))
	}
	if err := f.check(); err != nil {
		return Fault{}, fmt.Errorf("fakeserver: fault %q: %w", s, err)
	}
	return f, nil
}

// check validates f's fields against its kind.
func (f Fault) check() error {
	a, ok := kinds[f.Kind]
	if !ok {
		return fmt.Errorf("%w: unknown kind %q", transport.ErrBadFault, f.Kind)
	}
	switch {
	case a.tool == 0 && f.Tool != "":
		return fmt.Errorf("%w: %s applies to no tool", transport.ErrBadFault, f.Kind)
	case a.tool == 2 && f.Tool == "":
		return fmt.Errorf("%w: %s needs a tool (%s=TOOL)", transport.ErrBadFault, f.Kind, f.Kind)
	case f.Delay < 0 || f.Bytes < 0 || f.Code < 0 || f.Code > 255 || f.Events < 0 || f.Count < 0:
		return fmt.Errorf("%w: negative or out-of-range parameter", transport.ErrBadFault)
	case (f.Kind == FaultDelay || f.Kind == FaultDelayHeaders) && f.Delay == 0:
		return fmt.Errorf("%w: %s needs a positive duration", transport.ErrBadFault, f.Kind)
	case f.Status != 0 && f.Kind == FaultServerError && (f.Status < 500 || f.Status > 599):
		return fmt.Errorf("%w: status %d: want 500 to 599 for server-error", transport.ErrBadFault, f.Status)
	case f.Status != 0 && f.Kind != FaultServerError && (f.Kind != FaultRedirect || !isRedirect(f.Status)):
		return fmt.Errorf("%w: status %d: want 301, 302, 303, 307 or 308 for redirect", transport.ErrBadFault, f.Status)
	case f.Setsid && f.Kind != FaultGrandchild:
		return fmt.Errorf("%w: setsid is for grandchild only", transport.ErrBadFault)
	case f.Kind == FaultFloodNotifications && f.Count == 0:
		return fmt.Errorf("%w: %s needs a positive count", transport.ErrBadFault, f.Kind)
	case (f.Kind == FaultOversize || f.Kind == FaultFloodStderr) && f.Bytes == 0:
		return fmt.Errorf("%w: %s needs a positive size", transport.ErrBadFault, f.Kind)
	}
	if err := f.checkTask(); err != nil {
		return err
	}
	return f.checkSystem(runtime.GOOS)
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

// String returns the fault's text form; ParseFault(f.String()) == f.
func (f Fault) String() string {
	s := string(f.Kind)
	if f.Tool != "" {
		s += "=" + f.Tool
	}
	switch kinds[f.Kind].arg {
	case "duration":
		s += ":" + f.Delay.String()
	case "bytes":
		s += ":" + strconv.Itoa(f.Bytes)
	case "count":
		s += ":" + strconv.Itoa(f.Count)
	case "code":
		if f.Code != 0 {
			s += ":" + strconv.Itoa(f.Code)
		}
	case "message":
		if f.Message != "" {
			s += ":" + f.Message
		}
	case "events":
		s += ":" + strconv.Itoa(f.Events)
	case "status":
		if f.Status != 0 {
			s += ":" + strconv.Itoa(f.Status)
		}
	case "setsid":
		if f.Setsid {
			s += ":setsid"
		}
	}
	return s
}

func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
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
