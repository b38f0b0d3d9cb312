package cassette_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

const depthHeader = `{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"s"}` + "\n"

// nestedLine returns a client notification line that nests depth levels,
// the line's own object included. fast writes it as Marshal does (the
// fast path of Load); else its keys are out of order (encoding/json's).
func nestedLine(depth int, fast bool) string {
	inner := depth - 3 // the line, the message, its params
	params := `{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`
	msg := `{"jsonrpc":"2.0","method":"notifications/deep","params":` + params + `}`
	if fast {
		return `{"kind":"message","from":"client","message":` + msg + "}\n"
	}
	return `{"from":"client","kind":"message","message":` + msg + "}\n"
}

func nestedCassette(depth int, fast bool) []byte {
	return []byte(depthHeader + nestedLine(depth, fast) + `{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n")
}

// TestMaxDepthAtTheEdge: a line nesting MaxDepth levels loads, one level
// more is a *FormatError naming line 2 and whose Reason is FormatTooDeep, on
// Load's fast path and its slow one, through Load and Open.
func TestMaxDepthAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	for _, fast := range []bool{true, false} {
		for _, depth := range []int{cassette.MaxDepth, cassette.MaxDepth + 1} {
			path := tempPath(t, "deep.jsonl")
			if err := os.WriteFile(path, nestedCassette(depth, fast), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, way := range []struct {
				name string
				load func() error
			}{
				{"Load", func() error { _, err := cassette.Load(path); return err }},
				{"Open", func() error { return openClose(path, nil) }},
			} {
				err := way.load()
				var ferr *cassette.FormatError
				switch {
				case depth <= cassette.MaxDepth && err != nil:
					t.Errorf("%s (fast %v) of a line %d deep: %v, want it loaded", way.name, fast, depth, err)
				case depth > cassette.MaxDepth && (!errors.As(err, &ferr) || ferr.Line != 2 || ferr.Reason() != cassette.FormatTooDeep):
					t.Errorf("%s (fast %v) of a line %d deep: %v, want a *FormatError at line 2 for FormatTooDeep", way.name, fast, depth, err)
				}
			}
		}
	}
}

// TestDeepNestingBounded: 6,000,000 levels in 11 MiB, which overflowed the
// stack, and 1,048,576 levels in 2 MiB, which took 408 MiB, are refused
// as too deep, allocating little more than the file.
func TestDeepNestingBounded(t *testing.T) {
	leakcheck.Check(t)
	for _, levels := range []int{1 << 20, 6_000_000} {
		data := []byte(depthHeader + `{"kind":"message","from":"client","message":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + "}\n" + `{"kind":"end"}` + "\n")
		allocated := allocatedBy(func() {
			_, err := cassette.Parse("deep.jsonl", data)
			var ferr *cassette.FormatError
			if !errors.As(err, &ferr) || ferr.Line != 2 || ferr.Reason() != cassette.FormatTooDeep {
				t.Errorf("%d levels: %v, want a *FormatError at line 2 for FormatTooDeep", levels, err)
			}
		})
		t.Logf("%d levels, %d bytes: %d bytes allocated", levels, len(data), allocated)
		if limit := uint64(2*len(data)) + 1<<20; allocated > limit {
			t.Errorf("%d levels in %d bytes: %d bytes allocated, want at most %d", levels, len(data), allocated, limit)
		}
	}
}

// allocatedBy returns the bytes f allocates on the heap, in all: more than
// its peak, never less.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
