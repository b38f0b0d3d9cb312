package fakeserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// userServers are a server under test in both forms Wrap takes: a go-sdk
// server with a typed tool, and this module's server.Server.
func userServers(t *testing.T) map[string]func(*WrapOptions) (*Server, error) {
	type in struct {
		Q string `json:"q"`
	}
	return map[string]func(*WrapOptions) (*Server, error){
		"go-sdk": func(o *WrapOptions) (*Server, error) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "v0"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + a.Q}}}, nil, nil
			})
			return Wrap(srv, o)
		},
		"server": func(o *WrapOptions) (*Server, error) {
			srv, err := server.New("mine", "v0", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = server.RegisterToolFor(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + a.Q}}}, nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return Wrap(srv, o)
		},
	}
}

// A wrapped server keeps its catalog and replies, and gets a fake's
// counters and in-process faults; each faulty call is counted once.
func TestWrapFaultsAndCounts(t *testing.T) {
	leakcheck.Check(t)
	tests := []struct {
		fault Fault
		want  outcome
	}{
		{Fault{}, outcome{Text: "found x"}},
		{Fault{Kind: FaultDelay, Tool: "search", Delay: time.Millisecond}, outcome{Text: "found x"}},
		{Fault{Kind: FaultError, Tool: "search", Message: "down"}, outcome{Text: "down", IsError: true}},
		{Fault{Kind: FaultPanic, Tool: "search", Message: "boom"}, outcome{Text: "handler panicked: boom", IsError: true}},
		{Fault{Kind: FaultOversize, Tool: "search", Bytes: 10}, outcome{Text: "xxxxxxxxxx"}},
	}
	for name, wrap := range userServers(t) {
		for _, tt := range tests {
			t.Run(name+"/"+string(tt.fault.Kind), func(t *testing.T) {
				var faults []Fault
				if tt.fault.Kind != "" {
					faults = []Fault{tt.fault}
				}
				fs, err := wrap(&WrapOptions{Faults: faults})
				if err != nil {
					t.Fatal(err)
				}
				if fs.Name() != "mine" {
					t.Errorf("Name() = %q, want the server's name", fs.Name())
				}
				cs := connect(t, fs, nil)
				if diff := cmp.Diff(tt.want, call(t, cs, "search", `{"q":"x"}`)); diff != "" {
					t.Errorf("search mismatch (-want +got):\n%s", diff)
				}
				if _, err := callTool(context.Background(), cs, "nosuchtool", `{}`); err == nil {
					t.Error("a call to an unknown tool succeeded")
				}
				want := Counts{Executions: map[string]int{"search": 1}, Rounds: map[string]int{"search": 1}}
				if diff := cmp.Diff(want, fs.Counts()); diff != "" {
					t.Errorf("Counts mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestWrapHang(t *testing.T) {
	leakcheck.Check(t)
	for name, wrap := range userServers(t) {
		t.Run(name, func(t *testing.T) {
			fs, err := wrap(&WrapOptions{Faults: []Fault{{Kind: FaultHang, Tool: "search"}}})
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, fs, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, err := callTool(ctx, cs, "search", `{"q":"x"}`); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("hung call = %v, want the deadline", err)
			}
			if n := fs.Counts().Executions["search"]; n != 1 {
				t.Errorf("Executions = %d, want 1", n)
			}
		})
	}
}

func TestWrapRejects(t *testing.T) {
	for name, wrap := range userServers(t) {
		for _, tt := range []struct {
			fault Fault
			want  string
		}{
			{Fault{Kind: FaultError, Tool: "lookup"}, `server "mine" has no tool "lookup"`},
			{Fault{Kind: FaultCrash, Tool: "search"}, "does not act in this process, only in a child process"},
			{Fault{Kind: FaultEnv}, "not to a wrapped server"},
			{Fault{Kind: FaultSkillChanged, Tool: "search"}, "a wrapped server's skills are its own"},
			{Fault{Kind: FaultDelay, Tool: "search"}, "positive duration"},
		} {
			fs, err := wrap(&WrapOptions{Faults: []Fault{tt.fault}})
			if fs != nil || !errors.Is(err, transport.ErrBadFault) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Wrap(%v) = %v, %v; want an transport.ErrBadFault containing %q", name, tt.fault, fs, err, tt.want)
			}
		}
	}
	if _, err := Wrap((*mcp.Server)(nil), nil); err == nil {
		t.Error("Wrap(nil) succeeded")
	}
}

// After Detach, the server serves as if it had never been wrapped: no
// fault, no count; a second Wrap of the same server counts on its own.
func TestWrapDetach(t *testing.T) {
	leakcheck.Check(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "v0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "search", InputSchema: emptySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("found"), nil
	})
	first, err := Wrap(srv, &WrapOptions{Faults: []Fault{{Kind: FaultError, Tool: "search"}}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, first, nil)
	if got := call(t, cs, "search", `{}`); !got.IsError {
		t.Errorf("faulted call = %+v, want an error", got)
	}
	first.Detach()
	second, err := Wrap(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Text: "found"}, call(t, cs, "search", `{}`)); diff != "" {
		t.Errorf("after Detach mismatch (-want +got):\n%s", diff)
	}
	if a, b := first.Counts().Executions["search"], second.Counts().Executions["search"]; a != 1 || b != 1 {
		t.Errorf("executions: first %d, second %d; want 1 and 1", a, b)
	}
}

// askingServers are a server under test whose tool "confirm" asks the user
// with an input-required result before it answers, in both forms Wrap
// takes.
func askingServers(t *testing.T) map[string]func() (*Server, error) {
	ask := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "sure?", RequestedSchema: emptySchema}}}
	return map[string]func() (*Server, error){
		"go-sdk": func() (*Server, error) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "mine", Version: "v0"}, nil)
			srv.AddTool(&mcp.Tool{Name: "confirm", InputSchema: emptySchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if res, ok := req.Params.InputResponses["ok"].(*mcp.ElicitResult); ok {
					return text("confirmed: " + res.Action), nil
				}
				return ask, nil
			})
			return Wrap(srv, nil)
		},
		"server": func() (*Server, error) {
			srv, err := server.New("mine", "v0", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = srv.RegisterTool(&mcp.Tool{Name: "confirm", InputSchema: emptySchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if res, ok := server.ElicitResponse(req.Params.InputResponses, "ok"); ok {
					return text("confirmed: " + res.Action), nil
				}
				return ask, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return Wrap(srv, nil)
		},
	}
}

// A wrapped server's tool that asks for input completes with one
// execution on both revisions. On 2026-07-28 each round is a request, so
// the call is counted as two rounds; on 2025-11-25 the go-sdk runs both
// inside one request, below any middleware, and it is counted as one (see
// Wrap).
func TestWrapInputRequired(t *testing.T) {
	leakcheck.Check(t)
	for name, wrap := range askingServers(t) {
		for version, rounds := range map[string]int{"2025-11-25": 1, "2026-07-28": 2} {
			t.Run(name+"/"+version, func(t *testing.T) {
				fs, err := wrap()
				if err != nil {
					t.Fatal(err)
				}
				cs := connectRichAt(t, fs, newRichClient(), version)
				if diff := cmp.Diff(outcome{Text: "confirmed: accept"}, call(t, cs, "confirm", `{}`)); diff != "" {
					t.Errorf("confirm mismatch (-want +got):\n%s", diff)
				}
				want := Counts{Executions: map[string]int{"confirm": 1}, Rounds: map[string]int{"confirm": rounds}}
				if diff := cmp.Diff(want, fs.Counts()); diff != "" {
					t.Errorf("Counts mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}
