package cassette_test

import (
	"bytes"
	"testing"

	"github.com/looprig/mcp/cassette"
)

// FuzzLoad feeds arbitrary bytes to Parse: it must never panic, and whatever
// it accepts must marshal to a cassette that parses to the same bytes again.
// The seed corpus is in testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(good))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cassette.Parse("fuzz.jsonl", data)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse returned a cassette and an error: %v", err)
			}
			return
		}
		c.Player(nil) // precomputes match forms; must not panic
		once := c.Marshal()
		c2, err := cassette.Parse("fuzz.jsonl", once)
		if err != nil {
			t.Fatalf("re-parsing a marshaled cassette: %v\n%s", err, once)
		}
		if twice := c2.Marshal(); !bytes.Equal(once, twice) {
			t.Fatalf("Marshal is not a fixed point:\n%s\n---\n%s", once, twice)
		}
	})
}
