package cassette_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sized returns testdata/counter.jsonl with its first label padded so that
// the file is exactly n bytes.
func sized(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/counter.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const label = `"label":"first"`
	pad := n - len(data)
	if pad < 0 || strings.Count(string(data), label) != 1 {
		t.Fatalf("cannot pad testdata/counter.jsonl to %d bytes", n)
	}
	return []byte(strings.Replace(string(data), label, `"label":"first`+strings.Repeat("x", pad)+`"`, 1))
}

// bound stands for MaxSize in these tests (cassette.SetMaxSize): the code
// is the same, the files 64 KiB instead of 64 MiB.
const bound = 64 << 10

// TestMaxSizeLoadAtTheEdge: a cassette of exactly MaxSize bytes loads
// (cassette.Load, and Open from disk and through go-vcr storage); one byte more
// is a *FormatError naming the file, at every way in.
func TestMaxSizeLoadAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	cassette.SetMaxSize(t, bound)
	for _, n := range []int{bound, bound + 1} {
		data := sized(t, n)
		path := tempPath(t, "big.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fs := &memFS{files: map[string][]byte{path: data}}
		for _, way := range []struct {
			name string
			load func() error
		}{
			{"Load", func() error { _, err := cassette.Load(path); return err }},
			{"Open", func() error { return openClose(path, nil) }},
			{"Open with FS", func() error { return openClose(path, vcr.Apply(&cassette.Options{}, &vcr.Options{FS: fs})) }},
		} {
			err := way.load()
			var ferr *cassette.FormatError
			switch {
			case n <= bound && err != nil:
				t.Errorf("%s of a cassette of exactly MaxSize bytes: %v", way.name, err)
			case n > bound && (!errors.As(err, &ferr) || ferr.File != path || !strings.Contains(err.Error(), "larger than")):
				t.Errorf("%s of a cassette of MaxSize+1 bytes: error = %v, want a *FormatError naming %s, larger than the bound", way.name, err, path)
			}
		}
	}
}

// TestOversizeFileRefusedUnread: a cassette file past MaxSize is refused
// by Load and Open allocating little: before, reading it up to the bound
// grew a buffer to four times the bound.
func TestOversizeFileRefusedUnread(t *testing.T) {
	leakcheck.Check(t)
	cassette.SetMaxSize(t, bound)
	path := tempPath(t, "big.jsonl")
	if err := os.WriteFile(path, sized(t, 8*bound), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"Load": func() error { _, err := cassette.Load(path); return err },
		"Open": func() error { return openClose(path, nil) },
	} {
		var err error
		allocated := allocatedBy(func() { err = load() })
		var ferr *cassette.FormatError
		if !errors.As(err, &ferr) {
			t.Errorf("%s of %d bytes: %v, want a *FormatError", name, 8*bound, err)
		}
		if allocated > bound/4 {
			t.Errorf("%s of %d bytes allocated %d bytes, want at most %d", name, 8*bound, allocated, bound/4)
		}
	}
}

func openClose(path string, opts *cassette.Options) error {
	f, err := cassette.Open(path, nil, opts)
	if err != nil {
		return err
	}
	f.Close() // unused lines: not this test's business
	return nil
}

// TestMaxSizeRecordingAtTheEdge: a recording of exactly MaxSize bytes is
// written; one byte more is a *RecordError from Close (RecordTooLarge), and nothing is
// written. A tool returns as many bytes as it is asked for; a first
// recording measures the rest of the cassette.
func TestMaxSizeRecordingAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	cassette.SetMaxSize(t, bound)
	srv := mcp.NewServer(&mcp.Implementation{Name: "pad", Version: "v1"}, nil)
	type padIn struct {
		N int `json:"n"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "pad"}, func(ctx context.Context, req *mcp.CallToolRequest, in padIn) (*mcp.CallToolResult, any, error) {
		return text(strings.Repeat("x", in.N)), nil, nil
	})
	fs := &memFS{files: map[string][]byte{}}
	rec := func(n int) ([]byte, error) {
		path := fmt.Sprintf("pad-%d.jsonl", n)
		f, err := cassette.Open(path, inprocess.New(srv), vcr.Apply(&cassette.Options{Mode: cassette.ModeRecord}, &vcr.Options{FS: fs}))
		if err != nil {
			t.Fatal(err)
		}
		session(t, f, rev2025, call{Tool: "pad", Args: map[string]any{"n": n}})
		err = f.Close()
		data := fs.files[path]
		delete(fs.files, path)
		return data, err
	}
	small, err := rec(1)
	if err != nil {
		t.Fatal(err)
	}
	// The cassette is rest + the digits of n + n bytes.
	rest := len(small) - 2
	n := bound - rest - 8
	for rest+len(fmt.Sprint(n))+n < bound {
		n++
	}
	if data, err := rec(n); err != nil || len(data) != bound {
		t.Fatalf("a recording of MaxSize bytes: %d bytes written, Close %v; want exactly %d written", len(data), err, bound)
	}
	if data, err := rec(n + 1); reasonOf(err) != cassette.RecordTooLarge || data != nil {
		t.Errorf("a recording of MaxSize+1 bytes: %d bytes written, Close %v; want nothing written and RecordTooLarge", len(data), err)
	}
}
