package sse

import (
	"errors"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
)

// Classify implements transport.Classifier: it maps this package's errors to
// the transport sentinels.
//
// A status error is classed as Streamable HTTP's are. A 5xx, a 429 (Too
// Many Requests), and any other 4xx to a POST are the server's failure
// (transport.ErrServer). A 404 means the session is gone. A 400, 405,
// 413… means the server refused the request, which therefore did not run.
// 401 and 403 are auth. Any other status breaks the protocol. So does a
// session GET answered with something other than an event stream. So does a
// message on the session stream that is not JSON-RPC. A
// session stream that ends under calls awaiting their answer is
// transport.ErrBroken: their outcome is unknown.
func (f *Factory) Classify(err error) error {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Unwrap()
	}
	switch {
	case errors.Is(err, transport.ErrLimit), errors.Is(err, transport.ErrPolicy), errors.Is(err, auth.ErrInvalidArgument):
		return transport.ErrPolicy
	case errors.Is(err, transport.ErrAuth), errors.Is(err, auth.ErrNoCredential):
		return transport.ErrAuth
	case errors.Is(err, transport.ErrTimeout):
		return transport.ErrTimeout
	case errors.Is(err, transport.ErrProtocol):
		return transport.ErrProtocol
	}
	return nil
}
