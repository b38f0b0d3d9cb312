package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/looprig/mcp/transport"
)

// chunkReader returns at most n bytes a read, as a pipe may.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// FuzzFrameReader checks the frame bound against any child output, read in
// any chunking: what passes is exactly the input up to the first line longer
// than the bound plus the bound's worth of that line (so the decoder never
// holds more than the bound of one line), and the error names that line; an
// input with no such line passes whole.
func FuzzFrameReader(f *testing.F) {
	for _, seed := range []struct {
		in           string
		limit, chunk int
	}{
		{"{}\n{}\n", 2, 1},
		{"{}\n{\"x\":1}\n", 2, 3},
		{"abc", 3, 2},
		{"abcd", 3, 4},
		{"\n\n\n", 1, 1},
		{"aa\nbbb\ncccc\n", 3, 5},
	} {
		f.Add([]byte(seed.in), seed.limit, seed.chunk)
	}
	f.Fuzz(func(t *testing.T, in []byte, limit, chunk int) {
		limit = 1 + abs(limit)%64
		chunk = 1 + abs(chunk)%17
		fr := &frameReader{r: chunkReader{bytes.NewReader(in), chunk}, limit: limit}
		got, err := io.ReadAll(fr)

		// The model: split into lines; the first longer than limit stops.
		want, bad := in, 0
		start := 0
		for i, line := range bytes.SplitAfter(in, []byte("\n")) {
			if len(bytes.TrimSuffix(line, []byte("\n"))) > limit {
				want, bad = in[:start+limit], i+1
				break
			}
			start += len(line)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("frameReader passed %q, want %q (limit %d, chunk %d)", got, want, limit, chunk)
		}
		switch {
		case bad == 0 && err != nil:
			t.Fatalf("no line over %d bytes: error %v", limit, err)
		case bad > 0:
			var fe *FrameError
			if !errors.Is(err, transport.ErrLimit) || !errors.As(err, &fe) || fe.Limit != limit {
				t.Fatalf("line %d over %d bytes: error %v, want a *FrameError of that Limit matching ErrLimit", bad, limit, err)
			}
			if want := fmt.Sprintf("line %d is longer than %d bytes", bad, limit); !bytes.Contains([]byte(err.Error()), []byte(want)) {
				t.Fatalf("error %q does not say %q", err, want)
			}
			if _, again := fr.Read(make([]byte, 8)); again != err {
				t.Fatalf("Read after the error = %v, want the same error", again)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
