package mcptest_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each way to start a fake takes only the options that act there: a stdio
// fake no HTTP serving, an in-process one no transport, a wrapped server no
// catalog or revision (it has its own). A field added to the wrong type
// fails here, before a test could pass without it acting.
func TestOptionsHoldOnlyWhatActs(t *testing.T) {
	catalog := []string{"Catalog", "Custom", "Faults", "Revision"}
	served := []string{"Stateless", "Auth", "Transport"}
	want := map[string][]string{ // ClientProfile acts on the client.Definition every Fake hands out
		"InProcessOptions": append(append([]string{}, catalog...), "ClientProfile"),
		"StdioOptions":     append(append([]string{}, catalog...), "Transport", "ClientProfile"),
		"HTTPOptions":      append(append(append([]string{}, catalog...), served...), "ClientProfile"),
		"WrapOptions":      {"Faults", "ClientProfile"},
		"WrapHTTPOptions":  append(append([]string{"Faults"}, served...), "ClientProfile"),
	}
	got := map[string][]string{}
	for _, v := range []any{mcptest.InProcessOptions{}, mcptest.StdioOptions{}, mcptest.HTTPOptions{}, mcptest.WrapOptions{}, mcptest.WrapHTTPOptions{}} {
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			got[ty.Name()] = append(got[ty.Name()], ty.Field(i).Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("option fields mismatch (-want +got):\n%s", diff)
	}
}

// StdioOptions.Transport supervises each child: its Env reaches the child,
// beside the variables mcptest adds, and the caller's map is left alone.
func TestStdioTransportActs(t *testing.T) {
	mcptest.LeakCheck(t)
	env := map[string]string{"MCPTEST_MARK": "transported"}
	fake := mcptest.Stdio(t, &mcptest.StdioOptions{
		Faults:    []fakeserver.Fault{{Kind: fakeserver.FaultEnv}},
		Transport: &stdio.Options{Env: env},
	})
	res, err := fake.Client(nil).CallTool(t.Context(), "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{"MCPTEST_MARK=transported", fakeserver.ChildEnv + "=1", "GORACE=atexit_sleep_ms=0"} {
		if !slices.Contains(strings.Split(text, "\n"), want) {
			t.Errorf("the child's environment lacks %q:\n%s", want, text)
		}
	}
	if diff := cmp.Diff(map[string]string{"MCPTEST_MARK": "transported"}, env); diff != "" {
		t.Errorf("the caller's Env changed (-want +got):\n%s", diff)
	}
}
