//go:build !race

package testkit

// RaceEnabled reports whether the race detector is on (see race.go).
const RaceEnabled = false
