package record

import (
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// EvenOutMessages writes what timing alone orders in a recording of
// messages in one order. That covers a cancellation, an answer with the
// list changes and listings around it, and a notification with the
// listings around it.
func EvenOutMessages(c *format.Cassette) {
	orderCancels(c)
	moveAnswersEarlier(c)
	FloatNotifications(c)
	redact.RenameStates(c)
}

// EvenOutHTTP is EvenOutMessages at the HTTP level. There two more things
// reach the recorder in either order: a notification of the standalone GET
// or a listen stream, and the answers of the calls in flight. Event ids are numbered
// in the order written.
func EvenOutHTTP(c *format.Cassette) {
	moveNotificationsLater(c)
	orderCancels(c)
	moveAnswersEarlier(c)
	FloatNotifications(c)
	moveSideClosesEarlier(c) // again: a cancellation moved may have carried one later
	redact.RenameEventIDs(c)
	redact.RenameStates(c)
}
