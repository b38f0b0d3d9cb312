//go:build race

package streamablehttp

// raceEnabled reports whether the race detector is on, which changes what
// allocates.
const raceEnabled = true
