//go:build !linux

package stdio

import "os"

// pipe returns a pipe from os.Pipe: both ends in the runtime's poller where
// it has one; os/exec makes the child's end blocking as it passes it on.
func pipe(bool) (r, w *os.File, err error) { return os.Pipe() }
