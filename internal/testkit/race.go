//go:build race

package testkit

// RaceEnabled reports whether the race detector is on, which changes what
// allocates and how long things take: a test that counts allocations or
// bytes skips under it.
const RaceEnabled = true
