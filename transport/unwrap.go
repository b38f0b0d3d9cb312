package transport

import "github.com/modelcontextprotocol/go-sdk/mcp"

// A Wrapper is a Factory that makes its transports from another factory's
// (a cassette recording a live server, mcptest's leak tracker). It exposes
// what it wraps, as errors.Unwrap and http.ResponseController do. [As]
// then finds the optional capabilities of the wrapped factory through it
// (Classifier, ProtocolPinner, cassette.SecretHolder, any added later),
// with no forwarding method in the wrapper.
//
// Transports and connections that wrap others do the same with an
// Unwrap() mcp.Transport or Unwrap() mcp.Connection method, so that a
// [Diagnoser] below them is found, and the hooks the client asks of a
// Streamable HTTP transport.
type Wrapper interface {
	Factory
	// Unwrap returns the wrapped factory, or nil.
	Unwrap() Factory
}

// As finds the first value in v's chain that is a T, and reports whether
// there is one. The chain is v, then what its Unwrap method returns, and
// so on, while each value has one: Unwrap() Factory (a [Wrapper]),
// Unwrap() mcp.Transport or Unwrap() mcp.Connection. A wrapper that
// implements T itself is found first, so its own answer stands for what it
// wraps (a replaying cassette's Classify).
//
//	if p, ok := transport.As[transport.ProtocolPinner](f); ok {
//		pin = p.PinnedProtocolVersion()
//	}
//
// What As finds acts for the value it was found on: a method that returns
// a new factory (cassette.HTTPFactory's WithBase) returns one without the
// wrappers above it.
func As[T any](v any) (T, bool) {
	for v != nil {
		if t, ok := v.(T); ok {
			return t, true
		}
		switch u := v.(type) {
		case interface{ Unwrap() Factory }:
			v = u.Unwrap()
		case interface{ Unwrap() mcp.Transport }:
			v = u.Unwrap()
		case interface{ Unwrap() mcp.Connection }:
			v = u.Unwrap()
		default:
			v = nil
		}
	}
	var zero T
	return zero, false
}
