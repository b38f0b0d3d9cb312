package mcptest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

func TestHTTPFakeResumesAndDeletes(t *testing.T) {
	mcptest.LeakCheck(t)
	f := mcptest.HTTP(t, &mcptest.HTTPOptions{
		Faults:    []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}},
		Transport: &streamablehttp.Options{Credentials: auth.Bearer(auth.NewToken("t0ken"))},
	})
	if f.Kind() != transport.KindStreamableHTTP {
		t.Errorf("Kind = %v, want %v", f.Kind(), transport.KindStreamableHTTP)
	}
	def := f.Definition()
	def.Profile = client.Profile20251125 // resumption and DELETE are 2025-11-25's
	c := mcptest.Connect(t, def, nil)
	res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "x"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := f.Counts().Executions["lookup"]; got != 1 {
		t.Errorf("Executions = %d, want 1", got)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var resumes, deletes int
	for _, r := range f.HTTP().Requests() {
		if !r.Authorization {
			t.Errorf("request without the credential: %v", r)
		}
		switch {
		case r.Method == http.MethodGet && r.LastEventID != "":
			resumes++
		case r.Method == http.MethodDelete:
			deletes++
		}
	}
	if diff := cmp.Diff([2]int{1, 1}, [2]int{resumes, deletes}); diff != "" {
		t.Errorf("[resuming GETs, DELETEs] mismatch (-want +got):\n%s", diff)
	}
	if len(res.Content) == 0 {
		t.Errorf("empty result")
	}
}

func TestHTTPFakeReportsOpenSession(t *testing.T) {
	mcptest.LeakCheck(t)
	mcptest.SetGroupTimeout(t, 100*time.Millisecond) // the leak is certain
	var leaked *client.Client
	r := &recT{TB: t}
	failures := r.run(func(tb testing.TB) {
		f := mcptest.HTTP(tb, nil)
		c, err := client.Connect(t.Context(), f.Definition(), nil) // not mcptest.Connect: nobody closes it
		if err != nil {
			t.Fatal(err)
		}
		leaked = c
	})
	leaked.Close() // the server is gone: its DELETE fails, and that is fine
	if len(failures) != 1 || !strings.Contains(failures[0], "1 open session") {
		t.Errorf("failures = %q, want one report of an open session", failures)
	}
}
