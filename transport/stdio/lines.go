package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineConn is newline-delimited JSON over a reader and a writer. It reads
// and writes exactly as the go-sdk's own connection (mcp.IOTransport's)
// does:
//   - the same framing: encoding/json's Decoder finds each value, a byte
//     after it other than a line end is an error, and at most maxValue
//     bytes are read for one value;
//   - the same batches: an array of messages, whose calls are answered
//     with one array once all are answered;
//   - the same errors.
//
// It differs in one thing: each message is decoded once, by internal/wire.
// The go-sdk decodes a line twice (as a batch, then as a message), with a
// fresh 32 KiB decoder buffer each time, and the method a third time.
type lineConn struct {
	w        io.WriteCloser
	incoming chan rawOrErr // from the reading goroutine, unbuffered
	closed   chan struct{} // closed by Close

	queue []jsonrpc.Message // the unread messages of the last batch; reads are serialized

	writeMu sync.Mutex // serializes Write

	batchMu sync.Mutex                // guards batches
	batches map[jsonrpc.ID]*lineBatch // the batch each unanswered call of a batch came in

	closeOnce sync.Once
	closeErr  error
}

type rawOrErr struct {
	raw json.RawMessage
	err error
}

// A lineBatch is a batch of calls the peer sent: its answers go out
// together, in the calls' order, once every call has one.
type lineBatch struct {
	unresolved map[jsonrpc.ID]int // call → its index in responses
	responses  []*jsonrpc.Response
}

// errValueTooLarge is the go-sdk's error for a value read past its bound,
// with its words.
var errValueTooLarge = errors.New("inbound JSON-RPC frame exceeded the configured maximum line length")

// newLineConn starts reading r, which lineConn owns until it ends: the
// reading goroutine returns once r fails (Close does not end it; closing r
// does) or, if Close was called, once it has a value to hand over. It reads
// at most maxValue bytes for one value (read-ahead included).
func newLineConn(r io.Reader, w io.WriteCloser, maxValue int) *lineConn {
	c := &lineConn{w: w, incoming: make(chan rawOrErr), closed: make(chan struct{})}
	go c.readLoop(&valueLimiter{r: r, limit: maxValue})
	return c
}

// readLoop finds the values in the stream as the go-sdk's reading loop
// does, and hands each over.
func (c *lineConn) readLoop(lim *valueLimiter) {
	dec := json.NewDecoder(lim)
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			var tr [1]byte
			if n, readErr := dec.Buffered().Read(tr[:]); n > 0 {
				if tr[0] != '\n' && tr[0] != '\r' {
					err = errors.New("invalid trailing data at the end of stream")
				}
			} else if readErr != nil && readErr != io.EOF {
				err = readErr
			}
		}
		select {
		case c.incoming <- rawOrErr{raw: raw, err: err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
		lim.count = 0
	}
}

// valueLimiter fails a read once limit bytes have been read since count
// was last reset (after each value).
type valueLimiter struct {
	r     io.Reader
	limit int
	count int
}

func (l *valueLimiter) Read(p []byte) (int, error) {
	if l.count >= l.limit {
		return 0, errValueTooLarge
	}
	if len(p) > l.limit-l.count {
		p = p[:l.limit-l.count]
	}
	n, err := l.r.Read(p)
	l.count += n
	return n, err
}

// Read returns the next message: the next of the last batch, or the first
// of the next line. It returns io.EOF once Close was called.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	if len(c.queue) > 0 {
		next := c.queue[0]
		c.queue = c.queue[1:]
		return next, nil
	}
	var raw json.RawMessage
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		if v.err != nil {
			return nil, v.err
		}
		raw = v.raw
	case <-c.closed:
		return nil, io.EOF
	}
	msgs, isBatch, err := wire.ReadBatch(raw)
	if err != nil {
		return nil, err
	}
	c.queue = msgs[1:]
	if isBatch {
		if err := c.trackBatch(msgs); err != nil {
			return nil, err
		}
	}
	return msgs[0], nil
}

// trackBatch notes the calls of a batch, whose answers Write holds until
// the batch is answered.
func (c *lineConn) trackBatch(msgs []jsonrpc.Message) error {
	var b *lineBatch
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if b == nil {
			b = &lineBatch{unresolved: make(map[jsonrpc.ID]int)}
		}
		if _, ok := b.unresolved[req.ID]; ok {
			return fmt.Errorf("duplicate message ID %q", req.ID)
		}
		b.unresolved[req.ID] = len(b.responses)
		b.responses = append(b.responses, nil)
	}
	if b == nil {
		return nil
	}
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	for id := range b.unresolved {
		if _, ok := c.batches[id]; ok {
			return fmt.Errorf("%w: batch contains previously seen request %v", errInvalidRequest, id.Raw())
		}
	}
	if c.batches == nil {
		c.batches = make(map[jsonrpc.ID]*lineBatch)
	}
	for id := range b.unresolved {
		c.batches[id] = b
	}
	return nil
}

// errInvalidRequest is the go-sdk's jsonrpc2.ErrInvalidRequest.
var errInvalidRequest = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}

// answerBatch records resp in the batch of its call, if any. It reports
// whether resp belongs to a batch, and returns the batch's answers once
// resp completes it.
func (c *lineConn) answerBatch(resp *jsonrpc.Response) ([]*jsonrpc.Response, bool) {
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	b.responses[b.unresolved[resp.ID]] = resp
	delete(b.unresolved, resp.ID)
	delete(c.batches, resp.ID)
	if len(b.unresolved) == 0 {
		return b.responses, true
	}
	return nil, true
}

// Write sends msg as one line; the answer to a call of a batch goes out
// with the batch's other answers, once they are all there.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if batch, ok := c.answerBatch(resp); ok {
			if len(batch) == 0 {
				return nil
			}
			data, err := encodeBatch(batch)
			if err != nil {
				return err
			}
			_, err = c.w.Write(append(data, '\n'))
			return err
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

func encodeBatch(resps []*jsonrpc.Response) ([]byte, error) {
	raws := make([]json.RawMessage, 0, len(resps))
	for _, r := range resps {
		raw, err := jsonrpc.EncodeMessage(r)
		if err != nil {
			return nil, fmt.Errorf("encoding batch message: %w", err)
		}
		raws = append(raws, raw)
	}
	return json.Marshal(raws)
}

// Close closes the writer and ends Read with io.EOF. It may be called more
// than once.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.w.Close()
		close(c.closed)
	})
	return c.closeErr
}

// SessionID returns "".
func (c *lineConn) SessionID() string { return "" }
