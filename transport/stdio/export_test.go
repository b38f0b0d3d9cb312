package stdio

import "syscall"

// Sent returns the signals Close sent to c's process group, in order.
func Sent(c *Conn) []syscall.Signal { return c.proc.sent() }
