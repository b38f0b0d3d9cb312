package record

import (
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// OrderMessages writes what timing alone orders in a recording of
// messages in one order. That covers a cancellation, an answer with the
// list changes and listings around it, and a notification with the
// listings around it.
func OrderMessages(c *format.Cassette) {
	orderCancels(c)
	moveAnswersEarlier(c)
	MoveNotificationsEarlier(c)
	redact.RenameStates(c)
	redact.RenameTraceContext(c)
}

// OrderHTTP is OrderMessages at the HTTP level. There two more things
// reach the recorder in either order: a notification of the standalone GET
// or a listen stream, and the answers of the calls in flight. Event ids are numbered
// in the order written.
func OrderHTTP(c *format.Cassette) {
	moveNotificationsLater(c)
	orderCancels(c)
	moveAnswersEarlier(c)
	MoveNotificationsEarlier(c)
	moveSideClosesEarlier(c) // again: a cancellation moved may have carried one later
	redact.RenameEventIDs(c)
	redact.RenameStates(c)
	redact.RenameTraceContext(c)
}
