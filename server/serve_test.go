package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeStdio(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, lookupTool(), lookup)

	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	done := make(chan error, 1)
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := call(t, cs, "lookup", `{"query":"stdio"}`); got != "docs: stdio" {
		t.Errorf("CallTool = %q, want %q", got, "docs: stdio")
	}
	cs.Close() // closes the server's stdin
	if err := <-done; err != nil {
		t.Errorf("ServeStdio after stdin closed = %v, want nil", err)
	}
}

func TestServeContextCancel(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	ct, st := inprocess.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve after cancel = %v, want context.Canceled", err)
	}
}

func TestFactory(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", nil)
	mustRegister(t, s, lookupTool(), lookup)
	f := s.Factory()
	if f.Kind() != transport.KindInProcess {
		t.Errorf("Kind = %v, want inprocess", f.Kind())
	}
	// Many sessions share the registry at once.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			tr, err := f.Transport()
			if err != nil {
				errs <- err
				return
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			q := fmt.Sprint(i)
			if got, _, err := tryCall(cs, "lookup", `{"query":"`+q+`"}`); err != nil || got != "docs: "+q {
				errs <- fmt.Errorf("session %d: CallTool = %q, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNewOptionsErrors: each invalid argument or option of New is an
// *OptionsError naming it, matching ErrInvalidOptions; valid ones, at the
// edge, give none.
func TestNewOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sname  string
		opts   *Options
		option string // "" when valid
	}{
		{"nil options", "x", nil, ""},
		{"zero page size", "x", &Options{PageSize: 0}, ""},
		{"page size 1", "x", &Options{PageSize: 1}, ""},
		{"32-byte state key", "x", &Options{StateKey: make([]byte, 32)}, ""},
		{"empty name", "", nil, "name"},
		{"negative page size", "x", &Options{PageSize: -1}, "PageSize"},
		{"31-byte state key", "x", &Options{StateKey: make([]byte, 31)}, "StateKey"},
		{"empty state key", "x", &Options{StateKey: []byte{}}, "StateKey"},
		{"zero task TTL", "x", &Options{Tasks: &TaskOptions{TTL: 0}}, ""},
		{"task TTL 1ns", "x", &Options{Tasks: &TaskOptions{TTL: 1}}, ""},
		{"negative task TTL", "x", &Options{Tasks: &TaskOptions{TTL: -1}}, "Tasks.TTL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.sname, "v1", tc.opts)
			if tc.option == "" {
				if err != nil || s == nil {
					t.Fatalf("New = %v, %v; want a server", s, err)
				}
				return
			}
			if s != nil || !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("New = %v, %v; want nil and ErrInvalidOptions", s, err)
			}
			var oe *OptionsError
			if !errors.As(err, &oe) {
				t.Fatalf("New error %T is not an *OptionsError", err)
			}
			if diff := cmp.Diff(OptionsError{Func: "New", Option: tc.option}, OptionsError{Func: oe.Func, Option: oe.Option}); diff != "" {
				t.Errorf("OptionsError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
