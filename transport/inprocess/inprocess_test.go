package inprocess_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

func newServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return srv
}

func TestCallTool(t *testing.T) {
	ctx := context.Background()
	tr, err := inprocess.New(newServer()).Transport()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "hi" {
		t.Errorf("echo = %q, want %q", got, "hi")
	}
}

func TestCloseEndsBothSides(t *testing.T) {
	ctx := context.Background()
	ct, st := inprocess.Pipe()
	ss, err := newServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	ss.Wait() // returns only once the server side saw the close
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Error("ListTools after Close succeeded")
	}
}

// TestWriteAfterCloseIsErrClosed: a closed pipe refuses writes with the one
// transport.ErrClosed, which the go-sdk knows as mcp.ErrConnectionClosed.
func TestWriteAfterCloseIsErrClosed(t *testing.T) {
	ctx := context.Background()
	ct, _ := inprocess.Pipe()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	err = conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"})
	if !errors.Is(err, transport.ErrClosed) || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("Write after Close = %v, want transport.ErrClosed wrapping mcp.ErrConnectionClosed", err)
	}
}

// New(nil) returns a Factory whose every Transport fails with an error
// matching transport.ErrPolicy that names inprocess.New and its argument,
// so that client.Connect fails at once with a ClassPolicy error (a
// configuration error, as a bad Definition is), before anything starts.
// The same Connect of New with a server succeeds.
func TestNewNilServer(t *testing.T) {
	f := inprocess.New(nil)
	if f.Kind() != transport.KindInProcess {
		t.Errorf("Kind() = %v, want %v", f.Kind(), transport.KindInProcess)
	}
	for range 2 {
		tr, err := f.Transport()
		if tr != nil || !errors.Is(err, transport.ErrPolicy) || !strings.Contains(err.Error(), "inprocess.New: srv is nil") {
			t.Errorf("Transport() = %v, %v; want no transport and transport.ErrPolicy naming inprocess.New's srv", tr, err)
		}
	}
	for _, tc := range []struct {
		name string
		f    transport.Factory
		ok   bool
	}{
		{"New(srv)", inprocess.New(newServer()), true},
		{"New(nil)", f, false},
	} {
		c, err := client.Connect(testkit.Context(t), client.Definition{Name: "echo", Transport: tc.f}, nil)
		if tc.ok {
			if err != nil {
				t.Fatalf("%s: Connect: %v", tc.name, err)
			}
			c.Close()
			continue
		}
		if err == nil {
			c.Close()
		}
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Class != client.ClassPolicy || ce.Op != client.OpConnect ||
			!errors.Is(err, transport.ErrPolicy) || !strings.Contains(err.Error(), "inprocess.New: srv is nil") {
			t.Errorf("%s: Connect error = %v; want a ClassPolicy error of %s naming inprocess.New's srv", tc.name, err, client.OpConnect)
		}
	}
}
