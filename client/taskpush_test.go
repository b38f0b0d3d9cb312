package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pushFactory is a factory whose connection also reads, after what the
// server sends, the messages given to push: what a go-sdk server, which
// sends no notification it does not know, cannot send itself.
type pushFactory struct {
	transport.Factory
	push chan jsonrpc.Message
}

func (f *pushFactory) Transport() (mcp.Transport, error) {
	tr, err := f.Factory.Transport()
	return &pushTransport{Transport: tr, push: f.push}, err
}

type pushTransport struct {
	mcp.Transport
	push chan jsonrpc.Message
}

func (t *pushTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pushConn{Connection: conn, push: t.push}, nil
}

// pushConn reads a pushed message when one is given before the server's
// next message; the server's are read as they come. The go-sdk reads a
// connection on one goroutine.
type pushConn struct {
	mcp.Connection
	push chan jsonrpc.Message
	next jsonrpc.Message // the server's, read as a push came: read next
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func (c *pushConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if m := c.next; m != nil {
		c.next = nil
		return m, nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan readResult, 1)
	go func() { // ends with rctx, or with the read: waited for below
		msg, err := c.Connection.Read(rctx)
		got <- readResult{msg, err}
	}()
	select {
	case r := <-got:
		return r.msg, r.err
	case m := <-c.push:
		cancel()
		if r := <-got; r.err == nil {
			c.next = r.msg // the server's message came as well
		}
		return m, nil
	}
}

// A status the server pushes (notifications/tasks) wakes a waiting CallTool
// at once: polled every hour, the task is polled once, right after the push
// named it, and the call completes; the notification is not taken for the
// task's state (the poll reads that).
func TestTaskPushedStatusWakesTheWait(t *testing.T) {
	p := newTaskPeer()
	push := make(chan jsonrpc.Message)
	f := &pushFactory{Factory: inprocess.New(p.server()), push: push}
	c, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: f, Tasks: true,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: time.Hour, TaskTimeout: 2 * time.Hour}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(testkit.Context(t), "later", map[string]any{"hint": time.Hour.Milliseconds()})
		done <- err
	}()
	deadline := testkit.Context(t)
	select {
	case <-p.arrived:
	case <-deadline.Done():
		t.Fatal("the tools/call never reached the server")
	}
	p.release()
	note := func(id string) jsonrpc.Message {
		params, _ := json.Marshal(map[string]any{"taskId": id, "status": "completed"})
		return &jsonrpc.Request{Method: "notifications/tasks", Params: params}
	}
	// Pushed until the call is done: the first may come before the wait
	// began.
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(counts{Execs: map[string]int{"later": 1}, Gets: 1}, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
			return
		case push <- note("task-1"):
		case <-deadline.Done():
			t.Fatal("CallTool was not woken by the pushed status")
		}
	}
}
