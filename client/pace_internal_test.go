package client

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodConn is a connection that reads an endless flood of
// notifications/message.
type floodConn struct{ mcp.Connection }

func (floodConn) Read(context.Context) (jsonrpc.Message, error) {
	return &jsonrpc.Request{Method: "notifications/message"}, nil
}

// The reader is held back once pacingWindow notifications it read have not
// been handed over, released by each hand-over, and released after
// pacingStall when none comes (one the go-sdk could not decode never will).
func TestPacingHoldsTheReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newNotifier(8)
		p := &pacedConn{Connection: floodConn{}, n: n, paced: map[string]bool{"notifications/message": true}}
		ctx := context.Background()
		for i := range pacingWindow {
			start := time.Now()
			p.Read(ctx)
			if d := time.Since(start); d != 0 {
				t.Fatalf("read %d of the window waited %v", i+1, d)
			}
		}
		read := make(chan time.Duration)
		go func() {
			start := time.Now()
			p.Read(ctx)
			read <- time.Since(start)
		}()
		synctest.Wait()
		select {
		case d := <-read:
			t.Fatalf("read %d, past the window, returned after %v without a hand-over", pacingWindow+1, d)
		default:
		}
		// On the bubble's clock: the hand-over comes 1ms later.
		time.Sleep(time.Millisecond)
		n.arrived() // the go-sdk hands one over
		if d := <-read; d != time.Millisecond {
			t.Errorf("read past the window returned after %v, want 1ms (at the hand-over)", d)
		}
		// Nothing is handed over: the reader waits pacingStall, then
		// forgets what it was waiting for.
		go func() {
			start := time.Now()
			p.Read(ctx)
			read <- time.Since(start)
		}()
		if d := <-read; d != pacingStall {
			t.Errorf("read with no hand-over coming returned after %v, want %v", d, pacingStall)
		}
		n.stop()
	})
}
