package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A screen reads the frames of a stdio session as the go-sdk's IOTransport
// reads them. That is one JSON value after another, each ended by a
// newline or nothing, at most mcp.DefaultMaxLineLength bytes. It refuses
// the frames the go-sdk would read otherwise than another reader. It also
// refuses those the go-sdk could not answer with the id they were sent
// with. (See readPOST: the same rules.) It answers those itself on out,
// and hands the go-sdk the others, one per line.
type screen struct {
	in      io.ReadCloser
	limit   *limitReader
	dec     *json.Decoder
	out     *frameWriter
	pending []byte // the next frame, being read by the go-sdk
	err     error  // what ended the input
}

func newScreen(in io.ReadCloser, out *frameWriter) *screen {
	l := &limitReader{r: in, limit: mcp.DefaultMaxLineLength}
	return &screen{in: in, limit: l, dec: json.NewDecoder(l), out: out}
}

// errFrameTooLarge is returned when one frame passes the go-sdk's bound.
var errFrameTooLarge = fmt.Errorf("inbound JSON-RPC frame exceeded the %d-byte maximum line length", mcp.DefaultMaxLineLength)

func (s *screen) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.next()
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// next reads one frame: it becomes pending, or is refused, or ends the
// input with the error the go-sdk's own reading would end it with.
func (s *screen) next() {
	var raw json.RawMessage
	err := s.dec.Decode(&raw)
	if err == nil {
		var tr [1]byte
		if n, _ := s.dec.Buffered().Read(tr[:]); n > 0 && tr[0] != '\n' && tr[0] != '\r' {
			err = errors.New("invalid trailing data at the end of stream")
		}
	}
	s.limit.count = 0
	if err != nil {
		s.err = err
		return
	}
	if r := checkFrame(raw); r != nil {
		s.out.refuse(r)
		return
	}
	s.pending = append(raw, '\n')
}

// Close closes the input.
func (s *screen) Close() error { return s.in.Close() }

// checkFrame applies to one frame the checks readPOST applies to a body.
func checkFrame(raw []byte) *refusal {
	msgs, _, err := wire.ReadBatch(raw)
	if err != nil {
		return nil // the go-sdk's to refuse
	}
	envs, err := wire.Envelopes(raw)
	if err != nil {
		return &refusal{code: jsonrpc.CodeInvalidRequest, msg: "mcp: " + err.Error()}
	}
	for i, m := range msgs {
		if r, ok := m.(*jsonrpc.Request); ok && envs[i].ID != nil {
			if rf := checkID(envs[i].ID, r.ID); rf != nil {
				return rf
			}
		}
	}
	return nil
}

// A limitReader bounds the bytes read for one frame.
type limitReader struct {
	r     io.Reader
	limit int
	count int
}

func (r *limitReader) Read(p []byte) (int, error) {
	if r.count >= r.limit {
		return 0, errFrameTooLarge
	}
	p = p[:min(len(p), r.limit-r.count)]
	n, err := r.r.Read(p)
	r.count += n
	return n, err
}

// A frameWriter writes the frames of a stdio session, one Write each, the
// go-sdk's and the screen's refusals alike. A JSON-RPC error the go-sdk
// writes with code 0, which is no JSON-RPC code, gets a valid one on the
// way: -32600 (invalid request) for a request before the session is
// initialized, -32603 (internal error) for any other.
type frameWriter struct {
	mu sync.Mutex // serialises Write
	w  io.Writer
}

func (f *frameWriter) Write(p []byte) (int, error) {
	out := p
	if bytes.Contains(out, []byte(`"code":0`)) {
		out = fixCodes(out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (f *frameWriter) refuse(r *refusal) {
	e, _ := json.Marshal(&jsonrpc.Error{Code: r.code, Message: r.msg})
	f.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":%s}`+"\n", e))
}

// fixCodes returns frame (one response, or a batch of them, and a newline)
// with every error of code 0 given a valid code, or frame itself if it has
// none.
func fixCodes(frame []byte) []byte {
	msgs, batch, err := wire.ReadBatch(frame)
	if err != nil {
		return frame
	}
	fixed := false
	var parts [][]byte
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Response); ok {
			if e, ok := r.Error.(*jsonrpc.Error); ok && e.Code == 0 {
				e.Code = jsonrpc.CodeInternalError
				if strings.Contains(e.Message, "invalid during session initialization") {
					e.Code = jsonrpc.CodeInvalidRequest
				}
				fixed = true
			}
		}
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return frame
		}
		parts = append(parts, b)
	}
	if !fixed {
		return frame
	}
	out := bytes.Join(parts, []byte(","))
	if batch {
		out = append(append([]byte("["), out...), ']')
	}
	return append(out, '\n')
}
