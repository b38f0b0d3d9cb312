package record

import (
	"errors"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/transport"
)

// Config is what a recording is built with. Package cassette builds it
// from its Options.
type Config struct {
	Redact    redact.Config   // what is redacted
	Secret    map[string]bool // the canonical names of the headers whose values are credentials
	Volatile  []string        // the paths the header declares volatile
	Redaction string          // the digest of the redaction rules, for the header
	Hooks     []hook.Hook     // run on the exchanges of an HTTP recording
}

// declare writes into h what a recording with c declares.
func (c *Config) declare(h *format.Header) {
	h.Volatile = append([]string(nil), c.Volatile...)
	if len(h.Volatile) == 0 {
		h.Volatile = nil
	}
	h.Redaction = c.Redaction
}

var (
	// ErrIncomplete: the session never told its protocol revision and
	// server, so there is nothing to write.
	ErrIncomplete = errors.New("session has no handshake: no protocol revision or server name to record")

	// ErrTooLarge: the recording grew past the cassette bound.
	ErrTooLarge = errors.New("cassette: recording larger than the cassette bound")

	errOtherOrigin = errors.New("not the recorded origin")
)

// ClassOf names the class of err: the first transport sentinel it matches,
// after cl (the recorded factory's classifier, if any) has had its say.
func ClassOf(err error, cl transport.Classifier) transport.Class {
	if cl != nil {
		if s := cl.Classify(err); s != nil {
			err = s
		}
	}
	for _, c := range format.Recordable {
		if errors.Is(err, c.Err()) {
			return c
		}
	}
	var to interface{ Timeout() bool }
	if errors.As(err, &to) && to.Timeout() {
		return transport.ClassTimeout
	}
	return 0
}
