package format

import (
	"bytes"
	"io"
	"net/http"
)

// RequestBody reads req's body and leaves it readable again, up to Limit.
// A body of known length is read into a buffer of that length, so that
// memory stays near its size.
func RequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		defer b.Close()
		return readSized(b, req.ContentLength)
	}
	data, err := readSized(req.Body, req.ContentLength)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	return data, nil
}

// readSized reads r to its end, at most Limit bytes, into a buffer of
// size bytes when size is known (positive).
func readSized(r io.Reader, size int64) ([]byte, error) {
	r = io.LimitReader(r, int64(Limit))
	if size <= 0 || size > int64(Limit) {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// CloseRequestBody closes req's body, if it has one.
func CloseRequestBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
