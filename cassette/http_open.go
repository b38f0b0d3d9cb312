package cassette

import (
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A LiveHTTP is a live Streamable HTTP server as Open records it: its
// endpoint and the streamablehttp options that reach it. It is a
// transport.Factory (streamablehttp.New(Endpoint, Options)'s), so a
// client.Definition can name it as its Transport and hand it to Open (or
// mcptest.Cassette), which in a recording mode records the session at the
// http.RoundTripper level: an HTTPRecorder becomes Options.Base, below
// Options.Credentials, so credentials are redacted as they are sent.
type LiveHTTP struct {
	Endpoint string
	Options  *streamablehttp.Options // nil means streamablehttp's defaults
}

// Kind returns transport.KindStreamableHTTP.
func (l *LiveHTTP) Kind() transport.Kind { return transport.KindStreamableHTTP }

// Transport returns a transport to the live server.
func (l *LiveHTTP) Transport() (mcp.Transport, error) {
	f, err := streamablehttp.New(l.Endpoint, l.Options)
	if err != nil {
		return nil, err
	}
	return f.Transport()
}

// OpenHTTP is Open for the Streamable HTTP server at endpoint, reached with
// sopts: it returns what opts.Mode asks for, a Player of the cassette at
// path (ModeReplay, and ModeRecordOnce when the cassette exists), an
// HTTPRecorder of the live session writing to path (ModeRecord, and
// ModeRecordOnce when it does not), or a streamablehttp factory of the live
// server (ModePassthrough). The recorder is a transport.Factory too: its
// session is the live one, with the recorder as sopts.Base (sopts.Base, if
// set, carries the recorded requests), and the cassette is written when the
// session ends with its DELETE; call its Close as well, for a session that
// ends without one (a stateless server).
func OpenHTTP(path, endpoint string, sopts *streamablehttp.Options, opts *Options) (transport.Factory, error) {
	return Open(path, &LiveHTTP{Endpoint: endpoint, Options: sopts}, opts)
}

// recordLiveHTTP returns the HTTPRecorder of l that Open hands out.
func recordLiveHTTP(path string, l *LiveHTTP, o *Options) (*HTTPRecorder, error) {
	var base http.RoundTripper
	if l.Options != nil {
		base = l.Options.Base
	}
	r, err := NewHTTPRecorder(l.Endpoint, base, path, o)
	if err != nil {
		return nil, err
	}
	r.sopts = l.Options
	return r, nil
}

// Transport makes an HTTPRecorder a transport.Factory: it returns the
// transport of the recorded session, this package's streamablehttp
// transport to the endpoint with the recorder as Options.Base (the options
// are LiveHTTP.Options when Open made the recorder, the defaults
// otherwise). The cassette is written when the session ends with its
// DELETE, or by Close. It returns ErrUsed when called a second time.
func (r *HTTPRecorder) Transport() (mcp.Transport, error) {
	r.mu.Lock()
	if r.used {
		r.mu.Unlock()
		return nil, ErrUsed
	}
	r.used, r.saveOnDelete = true, true
	r.mu.Unlock()
	var so streamablehttp.Options
	if r.sopts != nil {
		so = *r.sopts
	}
	so.Base = r
	f, err := streamablehttp.New(r.endpoint, &so)
	if err != nil {
		return nil, fmt.Errorf("cassette %s: %w", r.path, err)
	}
	return f.Transport()
}

// openMode resolves ModeRecordOnce by whether the cassette exists.
func openMode(path string, mode Mode) (Mode, error) {
	if mode != ModeRecordOnce {
		return mode, nil
	}
	if _, err := os.Stat(path); err == nil {
		return ModeReplay, nil
	} else if errors.Is(err, os.ErrNotExist) {
		return ModeRecord, nil
	} else {
		return 0, fmt.Errorf("cassette: %w", err)
	}
}
