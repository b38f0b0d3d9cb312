package fakeserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestDocsCatalog(t *testing.T) {
	leakcheck.Check(t)
	fs := newFake(t, nil)
	cs := connect(t, fs, nil)
	ctx := context.Background()

	init := cs.InitializeResult()
	if got, want := init.ServerInfo.Name+" "+init.ServerInfo.Version, "docs "+Version; got != want {
		t.Errorf("serverInfo = %q, want %q", got, want)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"lookup"}, names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outcome{Text: "docs: transports"}, call(t, cs, "lookup", `{"query":"transports"}`)); diff != "" {
		t.Errorf("lookup mismatch (-want +got):\n%s", diff)
	}
	if got := call(t, cs, "lookup", `{}`); !got.IsError || !strings.HasPrefix(got.Text, "invalid input: ") {
		t.Errorf("lookup without query = %+v, want an invalid input error", got)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rr.Contents[0].Text, "# docs") {
		t.Errorf("docs://readme = %q", rr.Contents[0].Text)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "faults"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := gp.Messages[0].Content.(*mcp.TextContent).Text, "Summarize the documentation about faults."; got != want {
		t.Errorf("summarize = %q, want %q", got, want)
	}
}

// Every execution is counted exactly once; a call rejected before its
// handler runs is not an execution.
func TestExecutionsCounted(t *testing.T) {
	leakcheck.Check(t)
	countFile := filepath.Join(t.TempDir(), "counts.json")
	fs := newFake(t, &Options{CountFile: countFile})
	if got, err := ReadCounts(countFile); err != nil || len(got.Executions)+len(got.Rounds) != 0 {
		t.Errorf("ReadCounts before any call = %v, %v; want empty counts", got, err)
	}
	cs := connect(t, fs, nil)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { callTool(context.Background(), cs, "lookup", `{"query":"x"}`) })
	}
	wg.Wait()
	call(t, cs, "lookup", `{"query":7}`) // invalid: not executed
	callTool(context.Background(), cs, "nosuchtool", `{}`)
	if got := fs.Counts().Executions["lookup"]; got != 20 {
		t.Errorf("Executions(lookup) = %d, want 20", got)
	}
	want := Counts{Executions: map[string]int{"lookup": 20}, Rounds: map[string]int{"lookup": 20}}
	if diff := cmp.Diff(want, fs.Counts()); diff != "" {
		t.Errorf("Counts mismatch (-want +got):\n%s", diff)
	}
	got, err := ReadCounts(countFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadCounts mismatch (-want +got):\n%s", diff)
	}
	// No temporary files are left beside the count file.
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(countFile), ".*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

func TestReadCountsErrors(t *testing.T) {
	if _, err := ReadCounts(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("ReadCounts of a missing file succeeded")
	}
}

// The faults that make sense in-process act on the call and leave the
// session serving; each faulty call is still counted.
func TestInProcessFaults(t *testing.T) {
	leakcheck.Check(t)
	mk := func(f Fault) *Server { return newFake(t, &Options{Faults: []Fault{f}}) }
	tests := []struct {
		name  string
		fault Fault
		want  outcome
	}{
		{"delay", Fault{Kind: FaultDelay, Tool: "lookup", Delay: 20 * time.Millisecond}, outcome{Text: "docs: q"}},
		{"error", Fault{Kind: FaultError, Tool: "lookup"}, outcome{Text: "scripted failure", IsError: true}},
		{"error message", Fault{Kind: FaultError, Tool: "lookup", Message: "backend down"}, outcome{Text: "backend down", IsError: true}},
		{"panic", Fault{Kind: FaultPanic, Tool: "lookup", Message: "boom"}, outcome{Text: "handler panicked: boom", IsError: true}},
		{"oversize", Fault{Kind: FaultOversize, Tool: "lookup", Bytes: 100000}, outcome{Text: strings.Repeat("x", 100000)}},
	}
	for _, tt := range tests {
		fs := mk(tt.fault)
		cs := connect(t, fs, nil)
		start := time.Now()
		got := call(t, cs, "lookup", `{"query":"q"}`)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: lookup mismatch (-want +got):\n%s", tt.name, diff)
		}
		if tt.fault.Kind == FaultDelay && time.Since(start) < tt.fault.Delay {
			t.Errorf("delay: call returned after %v, before the %v delay", time.Since(start), tt.fault.Delay)
		}
		if n := fs.Counts().Executions["lookup"]; n != 1 {
			t.Errorf("%s: Executions = %d, want 1", tt.name, n)
		}
		// The session goes on serving (the fault applies again).
		if diff := cmp.Diff(tt.want, call(t, cs, "lookup", `{"query":"q"}`)); diff != "" {
			t.Errorf("%s: second lookup mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// An oversize fault raises the server's own result bound, so that it is
// the client's limits that the oversize result tests.
func TestOversizeRaisesBound(t *testing.T) {
	fs := newFake(t, &Options{Faults: []Fault{{Kind: FaultOversize, Tool: "lookup", Bytes: 5 << 20}}})
	if got := fs.Server().MaxResultBytes(); got <= 5<<20 {
		t.Errorf("MaxResultBytes = %d, want more than the 5 MiB oversize result", got)
	}
}

// A hung call never replies; it ends when the caller gives up, and the
// session serves the next call.
func TestInProcessHang(t *testing.T) {
	leakcheck.Check(t)
	fs := newFake(t, &Options{Catalog: CatalogRich, Faults: []Fault{{Kind: FaultHang, Tool: "lookup"}}})
	cs := connect(t, fs, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := callTool(ctx, cs, "lookup", `{"query":"q"}`); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung call error = %v, want context.DeadlineExceeded", err)
	}
	if diff := cmp.Diff(outcome{Text: "item-01"}, call(t, cs, "item-01", `{}`)); diff != "" {
		t.Errorf("call after a hung call mismatch (-want +got):\n%s", diff)
	}
	if n := fs.Counts().Executions["lookup"]; n != 1 {
		t.Errorf("Executions(lookup) = %d, want 1", n)
	}
}

func TestInProcessEnv(t *testing.T) {
	leakcheck.Check(t)
	t.Setenv("FAKESERVER_TEST_B", "2")
	t.Setenv("FAKESERVER_TEST_A", "1")
	fs := newFake(t, &Options{Faults: []Fault{{Kind: FaultEnv}}})
	got := call(t, connect(t, fs, nil), "env", `{}`).Text
	if !strings.Contains(got, "FAKESERVER_TEST_A=1\nFAKESERVER_TEST_B=2\n") {
		t.Errorf("env result lacks the sorted test variables:\n%s", got)
	}
	lines := strings.Split(got, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i-1] > lines[i] {
			t.Errorf("env lines not sorted: %q before %q", lines[i-1], lines[i])
		}
	}
}
