package cassette

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/transport"
)

// Options configure recording, replay and verification. One Options value
// is meant to be shared by all three, so that redaction and matching agree.
// A nil *Options means the zero value. An option the cassette's transport
// cannot use (RedactHeaders or go-vcr hooks, see package cassette/vcr, for
// a session that is not Streamable HTTP; Stderr for one that is not stdio)
// is an *OptionsError, never ignored.
type Options struct {
	// Mode selects what Open does. The zero value is ModeReplay; use
	// ModeFromEnv to take it from the environment.
	Mode Mode

	// Secrets are literal values to redact wherever they appear in a string
	// (object keys included). Each is replaced by "REDACTED-<n>", n being its
	// 1-based position in Secrets. Empty strings are ignored.
	Secrets []string
	// Revealers are secrets held behind an accessor (auth.Token, auth.Secret),
	// numbered after Secrets.
	Revealers []Revealer
	// Patterns redact every match in every string; when a pattern has a
	// group, only the first group's text is redacted ("Bearer (\S+)").
	Patterns []*regexp.Regexp
	// NotSecret are values the live factory hands its peer that are not
	// secrets, and are written as they are: a stdio child's Env value (a
	// config path, a log level). Every other such value of MinAutoSecret
	// bytes or more is redacted, plain paths included: a path may hold a secret (a token in it, the name of a key
	// file), and a temporary directory's path differs every run, which
	// its placeholder keeps out of the cassette. A value also in Secrets
	// or Revealers, or matched by Patterns or RedactPaths, is redacted all
	// the same. Empty strings are ignored.
	NotSecret []string
	// RedactPaths replace whole values inside messages, named by
	// dot-separated keys from the JSON-RPC message object, "*" matching any
	// key or array element: "params.arguments.password",
	// "result.content.*.text". Placeholders for pattern and path values are
	// numbered after the literal secrets, by first appearance.
	RedactPaths []string

	// IgnorePaths name values (same syntax as RedactPaths) that replay
	// matching, Compare and Verify ignore, in addition to "params._meta"
	// and "result._meta" (which hold progress tokens, trace context and
	// other per-run data) and "params.clientInfo" (the client's name and
	// version). A recording writes them into the cassette's header as
	// volatile, and every later replay, Compare and Verify of it ignores
	// them with no option set. At most 256.
	IgnorePaths []string
	// Wait bounds how long replay holds the answer to a matched request (or
	// the session's end it died with) for the recorded requests it was
	// ordered after (see FORMAT.md, "Order"): past it, the request fails with a
	// *MismatchError naming them. If zero, DefaultWait.
	Wait time.Duration
	// AllowUnused lets a replayed session leave recorded requests unmade.
	// By default (in every replay, and so in the replay mode ModeFromEnv
	// selects in CI) the replaying factory's Close returns an *UnusedError
	// naming the recorded client requests (calls with an id) the client
	// never made: an agent that stops making a call it made when the
	// cassette was recorded fails its test. Factory.Unused lists them (and
	// unsent client notifications) either way.
	AllowUnused bool
	// WriteAtClose, when recording, holds the recording until
	// Factory.Close writes it, instead of writing it as soon as the
	// session ends, so that the caller can still decide not to keep it
	// (Factory.Discard): mcptest.Cassette discards the recording of a test
	// that failed. It has no effect on a replay.
	WriteAtClose bool

	// Faults are injected into a replayed session: a stream dropped before
	// a message, a message delayed, the session ended at a message, a
	// request answered with an HTTP status (see FaultKind). They act in
	// replay only; a fault the cassette cannot take (a message it lacks, a
	// kind its transport has not) is an *OptionsError wrapping
	// transport.ErrBadFault.
	Faults []Fault

	// RedactHeaders names HTTP headers whose values are replaced by
	// placeholders, in addition to Authorization, Proxy-Authorization,
	// Cookie, Set-Cookie and DPoP, which always are. A value "Scheme
	// credential" keeps its scheme ("Bearer REDACTED-1").
	RedactHeaders []string
	// VCR holds the go-vcr hooks and storage that package cassette/vcr
	// sets (vcr.Apply). Its type is internal: only vcr.Apply sets it. If
	// nil, no hook runs and files are on disk.
	VCR *hook.Set

	// auto are the secrets the recorder learnt from the live factory
	// ([SecretHolder]: a stdio child's Env), after Revealers; Open,
	// Replay and Verify set it on their copy.
	auto []string

	// Stderr records the tail of a stdio server's standard error in the
	// ending of a session the client closed. (A session the server ended
	// has its tail recorded always.) Off by default: stderr is rarely
	// deterministic.
	Stderr bool
}

// DefaultWait is how long replay holds a matched request's answer for the
// recorded requests it was ordered after, when Options.Wait is zero.
const DefaultWait = 5 * time.Second

// wait returns the bound on a held answer.
func (o *Options) wait() time.Duration {
	if o.Wait > 0 {
		return o.Wait
	}
	return DefaultWait
}

func (o *Options) orZero() *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// A SecretHolder is a live factory that hands its peer values a recording
// must not keep: a stdio child's Options.Env. The recorder redacts them
// wherever they appear. It is found with transport.As, through wrappers.
type SecretHolder interface {
	// Secrets returns the values, in a fixed order.
	Secrets() []string
}

// withLive returns a copy of o that also redacts what live hands its peer
// (a SecretHolder).
func (o *Options) withLive(live transport.Factory) *Options {
	cp := *o.orZero()
	if h, ok := transport.As[SecretHolder](live); ok {
		cp.auto = append([]string(nil), h.Secrets()...)
	}
	return &cp
}

// Mode says whether a cassette is recorded, replayed or bypassed.
type Mode int

const (
	// ModeReplay serves the session from the cassette; no server is
	// started. A missing cassette is an error (ErrNotRecorded) saying how to
	// record it.
	ModeReplay Mode = iota
	// ModeRecord runs the live server and (re)writes the cassette when the
	// factory is closed.
	ModeRecord
	// ModeRecordOnce replays the cassette if it exists and records it if not.
	ModeRecordOnce
	// ModePassthrough runs the live server and neither reads nor writes the
	// cassette.
	ModePassthrough
)

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	switch m {
	case ModeReplay:
		return "replay"
	case ModeRecord:
		return "record"
	case ModeRecordOnce:
		return "record-once"
	case ModePassthrough:
		return "passthrough"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the Mode named s: a Mode's String, or "1"/"true" for
// ModeRecord and "0"/"false" for ModeReplay.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "replay", "0", "false":
		return ModeReplay, nil
	case "record", "1", "true":
		return ModeRecord, nil
	case "record-once", "once":
		return ModeRecordOnce, nil
	case "passthrough":
		return ModePassthrough, nil
	}
	return 0, fmt.Errorf("cassette: unknown mode %q (want replay, record, record-once or passthrough)", s)
}

// EnvRecord is the environment variable ModeFromEnv reads.
const EnvRecord = "MCPRIG_RECORD"

// ModeFromEnv returns the mode the environment asks for:
//
//   - MCPRIG_RECORD set: the mode it names (ParseMode; "1" records);
//   - else CI set to true (as CI systems do): ModeReplay, so CI never
//     needs a server;
//   - else ModeRecordOnce, so a developer records missing cassettes by
//     running the tests.
//
// CI is read as a boolean, as CI systems set it: empty, and the false
// values of strconv.ParseBool ("0", "f", "F", "false", "FALSE", "False"),
// mean no CI; any other value ("true", "1", "yes", the name of a CI
// system) means CI. An MCPRIG_RECORD value that names no mode is an error.
func ModeFromEnv() (Mode, error) {
	if s, ok := os.LookupEnv(EnvRecord); ok && s != "" {
		return ParseMode(s)
	}
	if inCI(os.Getenv("CI")) {
		return ModeReplay, nil
	}
	return ModeRecordOnce, nil
}

// inCI reports whether the value of CI says the tests run in CI: any value
// but empty and the false values of strconv.ParseBool.
func inCI(v string) bool {
	v = strings.TrimSpace(v)
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return v != ""
}

// Reasons an OptionsError gives, in its Err, beside a path's parse error;
// its Option names the option.
var (
	errTooManyPaths    = errors.New("too many paths")
	errNilPattern      = errors.New("nil pattern")
	errNotForTransport = errors.New("does not apply to this transport")
	errNoFile          = errors.New("no cassette file")                 // Option "path": empty, or a directory
	errNoLive          = errors.New("no live transport to record from") // Option "live": the mode or Verify needs one
)

// errUsed is returned by a factory's Transport called a second time: a
// cassette holds exactly one session.
var errUsed = errors.New("cassette: factory already made its session")

// Validate reports the first option that recording, replay or Verify
// cannot use with any transport, as an *OptionsError naming it (Func
// "Validate"). A nil *Options is valid.
func (o *Options) Validate() error {
	if err := o.check(0); err != nil {
		err.Func = "Validate"
		return err
	}
	return nil
}

// check returns the first option unusable for a session of kind (0: any),
// Func unset.
func (o *Options) check(kind transport.Kind) *OptionsError {
	if o == nil {
		return nil
	}
	for _, f := range []struct {
		name  string
		paths []string
	}{{"RedactPaths", o.RedactPaths}, {"IgnorePaths", o.IgnorePaths}} {
		for i, s := range f.paths {
			if _, err := format.ParsePath(s); err != nil {
				return &OptionsError{Option: f.name + "[" + strconv.Itoa(i) + "]", Value: s, Err: err}
			}
		}
	}
	if len(o.IgnorePaths) > format.MaxVolatile {
		return &OptionsError{Option: "IgnorePaths", Err: fmt.Errorf("%w: %d paths, more than %d", errTooManyPaths, len(o.IgnorePaths), format.MaxVolatile)}
	}
	for i, re := range o.Patterns {
		if re == nil {
			return &OptionsError{Option: "Patterns[" + strconv.Itoa(i) + "]", Err: errNilPattern}
		}
	}
	if kind == 0 {
		return nil
	}
	http := kind == transport.KindStreamableHTTP
	for _, f := range []struct {
		name string
		set  bool
		ok   bool
	}{
		{"Hooks", len(o.hooks()) > 0, http},
		{"RedactHeaders", len(o.RedactHeaders) > 0, http},
		{"Stderr", o.Stderr, kind == transport.KindStdio},
	} {
		if f.set && !f.ok {
			return &OptionsError{Option: f.name, Err: fmt.Errorf("%w (%s)", errNotForTransport, kind)}
		}
	}
	for i, h := range o.hooks() {
		if h.Run == nil {
			return &OptionsError{Option: "Hooks[" + strconv.Itoa(i) + "]", Err: errors.New("nil hook")}
		}
	}
	return nil
}

// checkOptions validates o for function fn and a session of kind.
func checkOptions(fn string, o *Options, kind transport.Kind) error {
	if err := o.check(kind); err != nil {
		err.Func = fn
		return err
	}
	return nil
}

// hooks returns the go-vcr hooks of o, adapted by package cassette/vcr.
func (o *Options) hooks() []hook.Hook {
	if o.VCR == nil {
		return nil
	}
	return o.VCR.Hooks
}
