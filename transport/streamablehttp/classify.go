package streamablehttp

import (
	"errors"

	"github.com/looprig/mcp/transport"
)

// Classify implements transport.Classifier: it maps this package's errors,
// which may reach the client as JSON-RPC errors, to the transport sentinels.
func (f *Factory) Classify(err error) error {
	switch {
	case errors.Is(err, ErrLimit), errors.Is(err, ErrInsecure), errors.Is(err, ErrCrossOrigin),
		errors.Is(err, ErrCrossOriginRedirect), errors.Is(err, ErrRedirectedPOST),
		errors.Is(err, ErrTooManyRedirects), errors.Is(err, ErrReplay):
		return transport.ErrPolicy
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrReauthorized):
		return transport.ErrAuth
	case errors.Is(err, ErrTimeout):
		return transport.ErrTimeout
	case errors.Is(err, ErrStreamDropped):
		return transport.ErrBroken
	}
	return nil
}
