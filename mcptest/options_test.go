package mcptest_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/mcptest"
)

// Each way to start a fake takes only the options that act there: a stdio
// fake no HTTP serving, an in-process one no transport, a wrapped server no
// catalog or revision (it has its own). A field added to the wrong type
// fails here, before a test could pass without it acting.
func TestOptionsHoldOnlyWhatActs(t *testing.T) {
	catalog := []string{"Catalog", "Definition", "Faults", "Revision"}
	served := []string{"Stateless", "Auth", "Transport"}
	want := map[string][]string{ // ClientProfile acts on the Definition every Fake hands out
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
