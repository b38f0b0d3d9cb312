package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/looprig/mcp/cassette"
)

// FuzzInspect: any cassette that loads is shown by inspect in every
// format, and diffed against a clean cassette, without a panic, with no
// control character raw, and at most a bounded multiple of its size (the
// indented messages of the HTML page included).
func FuzzInspect(f *testing.F) {
	for _, c := range corpus() {
		if c.loads && len(c.data) < 8<<10 {
			f.Add(c.data)
		}
	}
	for _, name := range []string{"docs.jsonl", "drop-resume.jsonl", "continuation-2026.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	clean, err := cassette.Load(cleanCassette)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := cassette.Parse("fuzz.jsonl", data)
		if err != nil {
			if r := shownRaw(err.Error()); r >= 0 {
				t.Fatalf("Parse's error shows %U raw: %q", r, err.Error())
			}
			return
		}
		for name, write := range formats {
			var out bytes.Buffer
			if err := inspectTo("", &out, write, c); err != nil {
				t.Fatal(err)
			}
			if r := shownRaw(out.String()); r >= 0 {
				t.Fatalf("inspect --format %s shows %U raw", name, r)
			}
			if limit := 64*len(data) + 1<<20; out.Len() > limit {
				t.Fatalf("inspect --format %s wrote %d bytes for %d, want at most %d", name, out.Len(), len(data), limit)
			}
		}
		drifts, err := cassette.Compare(clean, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := cassette.FormatDrifts(drifts, "OLD", "NEW"); shownRaw(s) >= 0 {
			t.Fatalf("the drifts show %U raw", shownRaw(s))
		}
	})
}
