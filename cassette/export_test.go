package cassette

import "testing"

// SetMaxSize makes the cassette bound n for t's duration.
func SetMaxSize(t testing.TB, n int) {
	old := maxSize
	maxSize = n
	t.Cleanup(func() { maxSize = old })
}
