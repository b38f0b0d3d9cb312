//go:build race

package client_test

// raceEnabled reports whether the race detector is on, which changes what
// allocates.
const raceEnabled = true
