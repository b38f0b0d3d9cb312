package sse

import (
	"errors"

	"github.com/looprig/mcp/transport"
)

// Classify implements transport.Classifier: it maps this package's errors
// to the transport sentinels.
func (f *Factory) Classify(err error) error {
	switch {
	case errors.Is(err, ErrLimit), errors.Is(err, ErrInsecure), errors.Is(err, ErrCrossOrigin),
		errors.Is(err, ErrCrossOriginEndpoint), errors.Is(err, ErrCrossOriginRedirect),
		errors.Is(err, ErrRedirectedPOST), errors.Is(err, ErrTooManyRedirects):
		return transport.ErrPolicy
	case errors.Is(err, ErrUnauthorized):
		return transport.ErrAuth
	case errors.Is(err, ErrTimeout):
		return transport.ErrTimeout
	case errors.Is(err, ErrNoEndpoint), errors.Is(err, ErrUnexpectedResponse):
		return transport.ErrProtocol
	}
	return nil
}
