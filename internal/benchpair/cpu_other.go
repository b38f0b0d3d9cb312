//go:build !unix

package benchpair

import "time"

// CPU returns the CPU time the process has used so far; on this platform it
// is not known (ok is false).
func CPU() (used time.Duration, ok bool) { return 0, false }
