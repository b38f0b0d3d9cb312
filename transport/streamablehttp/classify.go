package streamablehttp

import (
	"errors"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
)

// Classify implements transport.Classifier: it maps this package's errors,
// which may reach the client as JSON-RPC errors, to the transport sentinels.
func (f *Factory) Classify(err error) error {
	switch {
	case errors.Is(err, transport.ErrLimit), errors.Is(err, transport.ErrPolicy), errors.Is(err, auth.ErrInvalidArgument),
		errors.Is(err, errRedirectRefused):
		return transport.ErrPolicy
	case errors.Is(err, errResponseMismatch):
		return transport.ErrProtocol
	case errors.Is(err, transport.ErrAuth), errors.Is(err, ErrReauthorized), errors.Is(err, auth.ErrNoCredential):
		return transport.ErrAuth
	case errors.Is(err, transport.ErrTimeout):
		return transport.ErrTimeout
	case errors.Is(err, errStreamDropped):
		return transport.ErrBroken
	case errors.Is(err, errRefused):
		return transport.ErrServer
	}
	return nil
}
