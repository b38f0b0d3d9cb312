package client

import (
	"context"

	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Diversion. The go-sdk decodes the parameters of every notification it
// hands to a handler with a decoder that allocates a 32 KiB buffer for
// each; under a flood of log messages or progress that is nearly all the
// client's read path costs. The notifications the go-sdk does nothing with
// but call the client's handler (notifications/message and
// notifications/progress) are therefore taken from the connection before
// the go-sdk reads them (divert), their parameters decoded once as the
// go-sdk decodes them (internal/wire), and queued for the client's handler
// as the go-sdk's handler would have queued them. Whatever else a
// notification may change in the go-sdk (its list and resource caches,
// pending elicitations, cancellations, acknowledged subscriptions) it
// still receives: list changes, resource updates and the rest are not
// diverted.
//
// Order is kept: a notification is diverted only once the go-sdk has
// handed over every paced notification read before it (notifier.catchUp),
// so a handler sees a log message and a list change in the order the
// server sent them, as before. A notification whose parameters the go-sdk
// would refuse (missing, null, of the wrong shape), or that has no handler,
// is taken and dropped, as the go-sdk drops it.
//
// The connections the client wraps (pacedConn) divert in Read; a
// transport whose connection cannot be wrapped (Streamable HTTP) diverts
// in its response streams (clientseam.Diverter), keeping each event's id so
// that a resumed stream starts where the go-sdk last read.

// divert takes r from the go-sdk when the client handles it itself,
// reporting whether it did. It is called on the connection's reading
// goroutine, in the order the connection reads.
func (c *Client) divert(ctx context.Context, r *jsonrpc.Request) bool {
	if r.IsCall() {
		return false
	}
	switch r.Method {
	case "notifications/message":
		divertTo(ctx, c.notes, "logging", c.handlers.Logging, r.Params)
		return true
	case "notifications/progress":
		divertTo(ctx, c.notes, "progress", c.handlers.Progress, r.Params)
		return true
	case methodTasksNotification:
		c.taskPushed(r.Params) // see taskpush.go; the go-sdk would drop it
		return true
	case methodAcknowledged:
		c.tasksAcked(r.Params) // the go-sdk reads no taskIds; it still gets the rest
		return false
	}
	return false
}

// divertTo queues h's call with the notification's params, decoded into a
// P as the go-sdk decodes them before it calls a handler. Where the go-sdk
// would call no handler (h is nil; the params are missing, JSON null, or
// not decodable into a P, which the go-sdk refuses without a word, a
// notification having no answer) nothing is queued.
func divertTo[P any](ctx context.Context, n *notifier, kind string, h func(context.Context, *P), raw []byte) {
	if h == nil || len(raw) == 0 {
		return
	}
	var p *P
	if wire.Unmarshal(raw, &p) != nil || p == nil {
		return
	}
	n.catchUp(ctx)
	n.post(kind, func(ctx context.Context) { h(ctx, p) })
}
