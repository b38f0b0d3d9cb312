package record

import (
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// EvenOutMessages writes what timing alone orders in a recording of
// messages one way: a cancellation, an answer and the list changes and
// listings around it, a notification and the listings around it.
func EvenOutMessages(c *format.Cassette) {
	settleCancels(c)
	floatAnswers(c)
	FloatNotifications(c)
	redact.RenameStates(c)
}

// EvenOutHTTP is EvenOutMessages at the HTTP level, where a notification
// of the standalone GET or a listen stream and the answers of the calls in
// flight also reach the recorder in either order, and event ids are
// numbered in the order written.
func EvenOutHTTP(c *format.Cassette) {
	sinkNotifications(c)
	settleCancels(c)
	floatAnswers(c)
	FloatNotifications(c)
	liftSideCloses(c) // again: a cancellation settled may have carried one down
	redact.RenameEventIDs(c)
	redact.RenameStates(c)
}
