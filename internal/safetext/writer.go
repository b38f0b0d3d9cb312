package safetext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// A Writer passes what is written to it on as Text does: newlines and tabs
// kept, every other control, format and invalid character made visible.
// A character cut between two writes is held until the next one; Flush
// passes on what is held. A Writer is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex // guards w's writes and held
	w    io.Writer
	held []byte // the start of a character cut at the end of the last write
	buf  []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p, made visible, to the underlying writer. It returns
// len(p) when that write succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	in := p
	if len(w.held) > 0 {
		in = append(w.held, p...)
		w.held = nil
	}
	keep := cut(in)
	w.buf = appendVisible(w.buf[:0], string(in[:len(in)-keep]), true)
	if keep > 0 {
		w.held = append([]byte(nil), in[len(in)-keep:]...)
	}
	if len(w.buf) == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(w.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held of a cut character, as the invalid bytes it
// is.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	w.buf = appendVisible(w.buf[:0], string(w.held), true)
	w.held = nil
	_, err := w.w.Write(w.buf)
	return err
}

// cut returns how many bytes at the end of p start a character that the
// next write may complete.
func cut(p []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(p); n++ {
		c := p[len(p)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(p[len(p)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}
