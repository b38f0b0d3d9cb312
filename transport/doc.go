// Package transport defines what a client consumes: a [Factory] that yields one
// go-sdk [mcp.Transport] per connection, and the [Kind] that names it.
//
// Transports are chosen explicitly. Each transport package (transport/stdio,
// transport/streamablehttp, transport/sse, transport/inprocess) has a New that
// validates its options and returns a Factory; nothing starts until the
// client connects. There is no automatic selection, upgrade or fallback
// between kinds.
//
// A connection produced by a Factory may implement [Diagnoser] to explain why
// it ended (for a child process: how it exited and the tail of its stderr).
// The client attaches that diagnosis to the errors it returns.
//
// This package holds what every transport implements, and the optional
// capabilities ([Classifier], [ProtocolPinner], [Diagnoser]) a client asks
// for with [As], through wrappers.
package transport
