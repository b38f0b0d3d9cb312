package cassette_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/looprig/mcp/cassette"
)

// FuzzLoadHTTP feeds arbitrary bytes, seeded with HTTP cassettes, to Parse:
// it must never panic, a cassette it accepts must make a Player without
// panicking, and Marshal must be a fixed point. The seed corpus is in
// testdata/fuzz/FuzzLoadHTTP.
func FuzzLoadHTTP(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "http.jsonl")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cassette.Parse("fuzz.jsonl", data)
		if err != nil {
			return
		}
		c.Player(nil)
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
