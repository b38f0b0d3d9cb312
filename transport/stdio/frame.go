package stdio

import (
	"bytes"
	"fmt"
	"io"
)

// frameReader fails once a line (the bytes since the last '\n') grows past
// limit bytes. It sits between the child's stdout and the go-sdk's
// newline-delimited JSON decoder, so no inbound frame can make the decoder
// buffer more than the limit.
type frameReader struct {
	r     io.Reader
	limit int
	n     int   // bytes of the current line read so far
	line  int   // complete lines read so far
	err   error // sticky *FrameError once the limit is passed
}

func (f *frameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		seg := n - i
		if j >= 0 {
			seg = j
		}
		if f.n+seg > f.limit {
			f.err = &FrameError{Limit: f.limit, Err: fmt.Errorf("frame too large: line %d is longer than %d bytes", f.line+1, f.limit)}
			return i + f.limit - f.n, f.err
		}
		if j < 0 {
			f.n += seg
			break
		}
		f.n = 0
		f.line++
		i += j + 1
	}
	return n, err
}
