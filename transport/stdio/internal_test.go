package stdio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/transport"
)

func TestRing(t *testing.T) {
	for _, tt := range []struct {
		writes []string
		want   string
	}{
		{nil, ""},
		{[]string{"ab"}, "ab"},
		{[]string{"abcd"}, "abcd"},
		{[]string{"abcdef"}, "cdef"},
		{[]string{"ab", "cd"}, "abcd"},
		{[]string{"ab", "cd", "e"}, "bcde"},
		{[]string{"abc", "defgh", "ij"}, "ghij"},
		{[]string{"a", "b", "c", "d", "e", "f"}, "cdef"},
		{[]string{"abcdefghij", "k"}, "hijk"},
	} {
		r := newRing(4)
		for _, w := range tt.writes {
			if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if got := string(r.Bytes()); got != tt.want {
			t.Errorf("after %q: Bytes() = %q, want %q", tt.writes, got, tt.want)
		}
	}
}

func TestFrameReader(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    string // what is passed through
		tooLong bool
	}{
		{"abcd\nefgh\n", "abcd\nefgh\n", false},
		{"abcd\nefgh", "abcd\nefgh", false},
		{"abcd\nefghi\n", "abcd\nefgh", true},
		{"abcde", "abcd", true},
		{"\n\n\nabcd\n", "\n\n\nabcd\n", false},
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if one {
				r = iotest.OneByteReader(r)
			}
			var got bytes.Buffer
			_, err := io.Copy(&got, &frameReader{r: r, limit: 4})
			if diff := cmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("frameReader(%q, one byte %v) passed (-want +got):\n%s", tt.in, one, diff)
			}
			if errors.Is(err, transport.ErrLimit) != tt.tooLong {
				t.Errorf("frameReader(%q, one byte %v) error = %v, want too long: %v", tt.in, one, err, tt.tooLong)
			}
		}
	}
}

// The stderr ring holds exactly the last StderrBytes bytes written, whatever
// the sizes of the writes: a write of N-1, N and N+1 bytes included.
func TestRingKeepsExactlyTheTail(t *testing.T) {
	for size := 1; size <= 6; size++ {
		for _, writes := range [][]int{{size - 1}, {size}, {size + 1}, {1, size}, {size - 1, 1}, {size - 1, 2}, {3, 3, 3, 3}, {0, 1, 0, 2 * size, 1}, {2*size + 1, size - 1}} {
			r := newRing(size)
			var all []byte
			for i, n := range writes {
				p := make([]byte, max(n, 0))
				for j := range p {
					p[j] = byte('a' + (i*7+j)%26)
				}
				all = append(all, p...)
				if got, err := r.Write(p); got != len(p) || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v", len(p), got, err)
				}
			}
			want := all[max(0, len(all)-size):]
			if got := r.Bytes(); string(got) != string(want) {
				t.Errorf("ring of %d after writes %v holds %q, want %q", size, writes, got, want)
			}
		}
	}
}

// A one-line error quotes the stderr line that says what went wrong: the
// error a program prints before its usage, not the usage's last line; a
// Go panic's message, not its last frame; a Python exception, not its
// traceback header.
func TestWhatWentWrong(t *testing.T) {
	for _, tc := range []struct{ tail, want string }{
		{"", ""},
		{"boom: config missing\n", "boom: config missing"},
		{"flag provided but not defined: -no-such-flag\nUsage of myserver:\n  -config string\n    \tconfig file\n", "flag provided but not defined: -no-such-flag"},
		{"flag provided but not defined: -x\nusage: mcpcall [flags] TOOL\n\nStarts PROG. It exits 1 when the call fails (the error on stderr).\n\nFlags:\n  -timeout duration\n", "flag provided but not defined: -x"},
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/errors/main.go:9 +0x18\n", "panic: boom"},
		{"Traceback (most recent call last):\n  File \"s.py\", line 3, in <module>\n    main()\nValueError: no token\n", "ValueError: no token"},
		{"/app/server.js:3\n  throw new Error('no token')\n  ^\n\nError: no token\n    at Object.<anonymous> (/app/server.js:3:9)\n\nNode.js v22.1.0\n", "Error: no token"},
		{"listening\nshutting down\n", "shutting down"},
		{"  only indented\n", "  only indented"},
		{"usage: prog [flags]\n", "usage: prog [flags]"},
	} {
		if got := whatWentWrong([]byte(tc.tail)); got != tc.want {
			t.Errorf("whatWentWrong(%q) = %q, want %q", tc.tail, got, tc.want)
		}
	}
}
