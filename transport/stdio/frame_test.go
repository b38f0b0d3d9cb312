package stdio_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A frame exactly MaxFrameBytes long is read; one byte more ends the
// connection with a FrameError of that Limit, matching transport.ErrLimit
// and ErrPolicy, which Diagnose reports.
func TestFrameTooLarge(t *testing.T) {
	leakcheck.Check(t)
	const limit = 1000
	c := connect(t, newFactory(t, "frames", &stdio.Options{
		MaxFrameBytes: limit,
		Env:           map[string]string{sizeEnv: strconv.Itoa(limit)},
	}))
	msg, err := c.Read(testkit.Context(t))
	if err != nil {
		t.Fatalf("Read() of a frame of exactly %d bytes: %v", limit, err)
	}
	if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "notifications/test" {
		t.Errorf("Read() = %#v, want the test notification", msg)
	}
	_, err = c.Read(testkit.Context(t))
	var fe *stdio.FrameError
	if !errors.Is(err, transport.ErrLimit) || !errors.As(err, &fe) || fe.Limit != limit {
		t.Fatalf("Read() of an oversize frame: error = %v, want a *FrameError of Limit %d matching ErrLimit", err, limit)
	}
	if want := "stdio: reading frame: frame too large: line 2 is longer than 1000 bytes"; err.Error() != want {
		t.Errorf("Read() error text = %q, want %q", err, want)
	}
	if !errors.Is(err, transport.ErrPolicy) || errors.Is(err, transport.ErrProtocol) {
		t.Errorf("Read() error = %v, want it to match transport.ErrPolicy only", err)
	}
	if _, again := c.Read(testkit.Context(t)); again != err {
		t.Errorf("Read() after the frame error = %v, want the same error %v", again, err)
	}
	d := c.Diagnose()
	if d == nil || d.Exited || !errors.Is(d.Err, transport.ErrLimit) {
		t.Errorf("Diagnose() = %v, want a running child and ErrLimit", d)
	}
}

// A line that is not JSON ends the connection with a FrameError.
func TestMalformedFrame(t *testing.T) {
	leakcheck.Check(t)
	c := connect(t, newFactory(t, "malformed", nil))
	_, err := c.Read(testkit.Context(t))
	var fe *stdio.FrameError
	var se *json.SyntaxError
	if !errors.As(err, &fe) || !errors.As(err, &se) {
		t.Fatalf("Read() error = %v (%T), want a *FrameError wrapping a *json.SyntaxError", err, err)
	}
	if !errors.Is(err, transport.ErrProtocol) || errors.Is(err, transport.ErrPolicy) || errors.Is(err, transport.ErrLimit) || fe.Limit != 0 {
		t.Errorf("Read() error = %v (Limit %d), want it to match transport.ErrProtocol only", err, fe.Limit)
	}
	if d := c.Diagnose(); d == nil || d.Err != err {
		t.Errorf("Diagnose() = %v, want Err = %v", d, err)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if d := c.Diagnose(); d == nil || !d.Exited || d.Err != err {
		t.Errorf("Diagnose() after Close = %v, want exited with Err = %v", d, err)
	}
}
