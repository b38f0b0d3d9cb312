// Package clientseam defines the hooks the client asks of a transport to
// work around the go-sdk. Only transport/streamablehttp implements them.
//
// The go-sdk's Streamable HTTP connection has unexported methods the go-sdk
// calls. A wrapper of that connection would hide them, so the client cannot
// wrap it as it wraps the connections of other transports. Instead the
// transport takes these hooks and calls them from inside its connections.
//
// The client finds each hook with transport.As, through wrappers of the
// transport. They are not public: no other transport needs to implement
// them.
package clientseam

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Pacer is a transport whose connections can hold their reading back.
// The client asks for pacing so that notifications read but not yet
// handled stay bounded.
type Pacer interface {
	// SetPacer must be called before Connect. Each connection then calls
	// admit with the method of each notification it reads, before it hands
	// the notification on. admit may block, holding reading back, until it
	// returns. It returns when ctx ends.
	SetPacer(admit func(ctx context.Context, method string))
}

// A Diverter is a transport whose connections can hand the client a
// notification before the go-sdk reads it. The client takes the
// notifications it handles itself there, decoded once.
type Diverter interface {
	// SetDiverter must be called before Connect. Each connection then calls
	// divert, in order, with each notification the go-sdk would read. The
	// message is decoded as jsonrpc.DecodeMessage decodes it. When divert
	// returns true, the connection does not hand the notification on; it
	// still hands on what else carried it, such as an event id. divert may
	// block, holding reading back, until it returns. It returns when ctx
	// ends.
	SetDiverter(divert func(ctx context.Context, msg *jsonrpc.Request) bool)
}

// A Tapper is a transport whose connections can show the client the
// response to a request as it was read, before the go-sdk decodes it. The
// go-sdk keeps only the fields it knows; a tools/call answered with a task
// handle (the tasks extension) carries fields it does not.
type Tapper interface {
	// SetTap must be called before Connect. Each connection then calls tap
	// with the context its Write was given for a request and the whole
	// JSON-RPC response that answers it, before handing the response on.
	// tap must not block, nor keep msg past its return.
	SetTap(tap func(ctx context.Context, msg []byte))
}

// A Recorder is a transport factory that records or replays its
// exchanges in order (a cassette). The client then opens no listen for a
// task: the go-sdk cancels a listen off the wait's path, so its end has
// no fixed place among the recorded requests.
type Recorder interface {
	// RecordsExchanges reports whether the factory records or replays.
	RecordsExchanges() bool
}
