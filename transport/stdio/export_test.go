package stdio

import (
	"syscall"
	"time"
)

// Sent returns the signals Close sent to c's process group, in order.
func Sent(c *Conn) []syscall.Signal { return c.proc.sent() }

// SetTrackInterval sets the slowest pace of the descendant scan while a
// child runs (zero: no scans but Close's) until t ends.
func SetTrackInterval(t interface{ Cleanup(func()) }, d time.Duration) {
	old := trackInterval
	trackInterval = d
	t.Cleanup(func() { trackInterval = old })
}
