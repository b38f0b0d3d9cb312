package mcptest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runTest runs test as go test runs a test function, for the examples
// below: with a real testing.TB (a benchmark's, run once), its cleanups,
// and its failures printed, so that a failure shows in the example's
// output. In your own code the function is a TestXxx.
func runTest(test func(t testing.TB)) {
	testing.Benchmark(func(b *testing.B) {
		test(exampleT{b})
		b.SkipNow() // one run: a benchmark would run its function again
	})
}

// exampleT prints a test's failures.
type exampleT struct{ testing.TB }

func (t exampleT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	t.TB.Fail()
}
func (t exampleT) Error(args ...any) {
	fmt.Println(append([]any{"FAIL:"}, args...)...)
	t.TB.Fail()
}
func (t exampleT) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.TB.FailNow() }
func (t exampleT) Fatal(args ...any)                 { t.Error(args...); t.TB.FailNow() }

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	return tc.Text
}

// CheckServer reports every protocol problem of a server under test at once;
// the fake server has none.
func ExampleCheckServer() {
	fake, err := fakeserver.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mcptest.CheckServer(context.Background(), fake.Factory()))
	// Output: <nil>
}

// A test of a client against a fake server run as a stdio child: the call
// runs once, and Close reaps the child (checked at cleanup).
func ExampleStdio() {
	runTest(func(t testing.TB) {
		mcptest.LeakCheck(t)
		fake := mcptest.Stdio(t, nil) // the test binary, re-run through mcptest.Main
		c := fake.Client(nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "close"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(text(res))
		fmt.Println("executions:", fake.Counts().Executions["lookup"])
	})
	// Output:
	// docs: close
	// executions: 1
}

// A fake of your own: tools with scripted replies, a fault on one of
// them, and the count of each execution.
func ExampleInProcess_definition() {
	weather := &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{{
		Name:        "get_weather",
		InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		Reply:       fakeserver.Sequence(fakeserver.Text("sunny"), fakeserver.Text("rain")),
	}}}
	runTest(func(t testing.TB) {
		fake := mcptest.InProcess(t, &mcptest.InProcessOptions{
			Custom: weather,
			Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "get_weather", Delay: time.Millisecond}},
		})
		c := fake.Client(nil)
		for range 2 {
			res, err := c.CallTool(t.Context(), "get_weather", map[string]any{"city": "Oslo"})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println(text(res))
		}
		fmt.Println("executions:", fake.Counts().Executions["get_weather"])
	})
	// Output:
	// sunny
	// rain
	// executions: 2
}

// Your own server under test, wrapped with a fault and the counters: the
// scripted error reaches the client as the tool's error, and the call ran
// once.
func ExampleWrap() {
	srv, err := server.New("mine", "v1.0.0", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = server.RegisterToolFor(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Q string `json:"q"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Q}}}, nil, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runTest(func(t testing.TB) {
		fake := mcptest.Wrap(t, srv, &mcptest.WrapOptions{
			Faults: []fakeserver.Fault{{Kind: fakeserver.FaultError, Tool: "search", Message: "index offline"}},
		})
		c := fake.Client(nil)
		_, err := c.CallTool(t.Context(), "search", map[string]any{"q": "x"})
		fmt.Println(err)
		fmt.Println("executions:", fake.Counts().Executions["search"])
	})
	// Output:
	// mcp mine: call search: tool: tool reported an error: index offline
	// executions: 1
}

// A fake over Streamable HTTP that drops the call's response stream after
// the tool ran: on 2025-11-25 the client resumes it with Last-Event-ID and
// reads the reply; the tool ran once, and Close sent DELETE (an open
// session would fail the test at cleanup).
func ExampleHTTP() {
	runTest(func(t testing.TB) {
		mcptest.LeakCheck(t)
		fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
			Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}},
		})
		def := fake.Definition()
		def.Profile = client.Profile20251125 // the revision that resumes streams
		c := mcptest.Connect(t, def, nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "resume"})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		resumes, deletes := 0, 0
		for _, r := range fake.HTTP().Requests() {
			switch {
			case r.Method == http.MethodGet && r.LastEventID != "":
				resumes++
			case r.Method == http.MethodDelete:
				deletes++
			}
		}
		fmt.Println(text(res))
		fmt.Println("executions:", fake.Counts().Executions["lookup"], "resumes:", resumes, "deletes:", deletes)
	})
	// Output:
	// docs: resume
	// executions: 1 resumes: 1 deletes: 1
}

// Record once against the live server, replay in CI with no server: here
// both in one run, with the modes the environment would give them
// (MCPRIG_RECORD=1 records; CI=true replays, and fails on a cassette that
// is missing).
func ExampleCassette() {
	dir, err := os.MkdirTemp("", "cassette")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "docs.cassette")
	var fake *mcptest.Fake
	// MCPRIG_RECORD=1 go test: the session is recorded against the live
	// server, and the cassette written when the test ends, if it passed.
	runTest(func(t testing.TB) {
		fake = mcptest.InProcess(t, nil) // or your real server's client.Definition
		t.Setenv(cassette.EnvRecord, "1")
		rec := mcptest.Connect(t, mcptest.Cassette(t, path, fake.Definition(), nil), nil)
		if _, err := rec.CallTool(t.Context(), "lookup", map[string]any{"query": "cassettes"}); err != nil {
			t.Fatal(err)
		}
	})
	// CI=true go test: replayed, with no server.
	runTest(func(t testing.TB) {
		t.Setenv("CI", "true")
		c := mcptest.Connect(t, mcptest.Cassette(t, path, client.Definition{Name: "docs"}, nil), nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "cassettes"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("replayed:", text(res))
	})
	fmt.Println("executions at the server:", fake.Counts().Executions["lookup"])
	// Output:
	// replayed: docs: cassettes
	// executions at the server: 1
}
