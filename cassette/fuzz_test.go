package cassette_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
)

// FuzzLoad feeds arbitrary bytes to Parse: it must never panic; whatever it
// accepts must replay (Replay builds the player's index without panicking)
// and marshal to a cassette that parses to the same bytes again. The seed
// corpus is in testdata/fuzz/FuzzLoad, with testdata's cassettes of both
// versions and levels.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(goodV1))
	f.Add([]byte(strings.Replace(good, `"server":"docs"}`, `"server":"docs","volatile":["params.arguments.now","*"],"redaction":"sha256:`+strings.Repeat("0a", 32)+`"}`, 1)))
	for _, file := range []string{"counter.jsonl", "http.jsonl", "v1-counter.jsonl", "v1-http.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("testdata", file)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cassette.Parse("fuzz.jsonl", data)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse returned a cassette and an error: %v", err)
			}
			return
		}
		// A cassette that names redaction rules replays with those rules
		// only: the player is exercised on a copy that names none.
		unnamed := *c
		unnamed.Header.Redaction = ""
		if r, err := cassette.Replay(&unnamed, nil, nil); err != nil {
			t.Fatalf("Replay of a parsed cassette: %v", err)
		} else {
			r.Close()
		}
		once, err := c.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed cassette: %v", err)
		}
		c2, err := cassette.Parse("fuzz.jsonl", once)
		if err != nil {
			t.Fatalf("re-parsing a marshaled cassette: %v\n%s", err, once)
		}
		if twice, _ := c2.Marshal(); !bytes.Equal(once, twice) {
			t.Fatalf("Marshal is not a fixed point:\n%s\n---\n%s", once, twice)
		}
	})
}
