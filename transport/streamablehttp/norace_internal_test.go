//go:build !race

package streamablehttp

const raceEnabled = false
