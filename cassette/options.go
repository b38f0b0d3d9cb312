package cassette

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/looprig/mcp/transport"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Options configure recording, replay and verification. One Options value
// is meant to be shared by all three, so that redaction and matching agree.
// A nil *Options means the zero value.
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
	// RedactPaths replace whole values inside messages, named by
	// dot-separated keys from the JSON-RPC message object, "*" matching any
	// key or array element: "params.arguments.password",
	// "result.content.*.text". Placeholders for pattern and path values are
	// numbered after the literal secrets, by first appearance.
	RedactPaths []string

	// IgnorePaths name values (same syntax as RedactPaths) that replay
	// matching and Verify ignore, in addition to "params._meta" and
	// "result._meta" (which hold progress tokens and other per-run data).
	IgnorePaths []string
	// Wait bounds how long replay holds the answer to a matched request
	// for the recorded requests it was ordered after (see the package
	// documentation, "Concurrent requests"): past it, the request fails
	// with a *MismatchError naming them. If zero, DefaultWait.
	Wait time.Duration
	// Strict makes a replaying connection's Close report recorded client
	// messages that were never sent, as an *UnusedError. If false they are
	// only available from Player.Unused.
	Strict bool

	// RedactHeaders names HTTP headers whose values are replaced by
	// placeholders, in addition to Authorization, Proxy-Authorization,
	// Cookie and Set-Cookie, which always are. A value "Scheme credential"
	// keeps its scheme ("Bearer REDACTED-1").
	RedactHeaders []string
	// Hooks are go-vcr hooks run on each HTTP exchange, presented as a
	// go-vcr cassette.Interaction: AfterCaptureHook and BeforeSaveHook when
	// the recorder saves (after the built-in redaction, so hooks never see
	// a secret), BeforeResponseReplayHook before replay serves a response.
	// See the package documentation, "HTTP and go-vcr".
	Hooks []*recorder.Hook
	// FS stores HTTP cassettes (go-vcr's storage interface). If nil, files
	// are read and written on disk, written atomically.
	FS vcr.FS

	// Stderr records, when the session ends, the tail of the server's
	// standard error that the inner connection reports through
	// transport.Diagnoser (stdio children). Off by default: stderr is
	// rarely deterministic.
	Stderr bool
}

var defaultIgnore = []string{"params._meta", "result._meta"}

func (o *Options) orZero() *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// Mode says whether a cassette is recorded, replayed or bypassed.
type Mode int

const (
	// ModeReplay serves the session from the cassette; no server is
	// started. A missing cassette is an error (ErrNotRecorded) saying how to
	// record it.
	ModeReplay Mode = iota
	// ModeRecord runs the live server and (re)writes the cassette when the
	// session closes.
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
//   - else CI set (as CI systems do): ModeReplay, so CI never needs a server;
//   - else ModeRecordOnce, so a developer records missing cassettes by
//     running the tests.
//
// An MCPRIG_RECORD value that names no mode is an error.
func ModeFromEnv() (Mode, error) {
	if s, ok := os.LookupEnv(EnvRecord); ok && s != "" {
		return ParseMode(s)
	}
	if os.Getenv("CI") != "" {
		return ModeReplay, nil
	}
	return ModeRecordOnce, nil
}

// ErrNotRecorded is returned by Open in ModeReplay when the cassette does
// not exist.
var ErrNotRecorded = errors.New("cassette not recorded")

// ErrNoLive is returned by Open when the mode needs the live server and none
// was given.
var ErrNoLive = errors.New("no live transport to record from")

// ErrHTTPLevel is returned by Open when asked to record a streamablehttp
// factory at the message level: the go-sdk's HTTP connection needs private
// hooks a wrapper would hide. Record it with RecordHTTP, as the factory's
// Options.Base.
var ErrHTTPLevel = errors.New("streamablehttp sessions are recorded at the http.RoundTripper level: open a *LiveHTTP (or use OpenHTTP), or put RecordHTTP under streamablehttp.Options.Base")

// Open returns the factory that opts.Mode asks for: a Player of the cassette
// at path, a Recorder of live writing to path, or live itself. live may be
// nil in ModeReplay. A *LiveHTTP is recorded at the HTTP level, by an
// *HTTPRecorder (see OpenHTTP); any other streamablehttp factory cannot be
// recorded (ErrHTTPLevel).
func Open(path string, live transport.Factory, opts *Options) (transport.Factory, error) {
	o := opts.orZero()
	mode, err := openMode(path, o.Mode)
	if err != nil {
		return nil, err
	}
	switch mode {
	case ModeReplay:
		c, err := Load(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cassette %s: %w; record it by running the test against the live server with %s=1", path, ErrNotRecorded, EnvRecord)
		}
		if err != nil {
			return nil, err
		}
		p, err := NewPlayer(c, o)
		if err != nil {
			return nil, inOpen(err)
		}
		return p, nil
	case ModeRecord, ModePassthrough:
		if live == nil {
			return nil, fmt.Errorf("cassette %s: %s: %w", path, mode, ErrNoLive)
		}
		if mode == ModePassthrough {
			return live, nil
		}
		if l, ok := live.(*LiveHTTP); ok {
			r, err := recordLiveHTTP(path, l, o)
			if err != nil {
				return nil, inOpen(err)
			}
			return r, nil
		}
		if live.Kind() == transport.KindStreamableHTTP {
			return nil, fmt.Errorf("cassette %s: %w", path, ErrHTTPLevel)
		}
		r, err := NewRecorder(live, path, o)
		if err != nil {
			return nil, inOpen(err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("cassette: unknown mode %v", mode)
}

// inOpen names Open as the constructor of an *OptionsError.
func inOpen(err error) error {
	var oerr *OptionsError
	if errors.As(err, &oerr) {
		oerr.Func = "Open"
	}
	return err
}
