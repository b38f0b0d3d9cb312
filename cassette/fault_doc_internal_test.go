package cassette

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/faultspec"
)

// TestFaultsDocument: FAULTS.md's table lists every kind of replay, in the
// table's order, with its text form, where it acts, its target and its
// argument; and nothing else as cassette's. The kinds cassette declares
// are the table's.
func TestFaultsDocument(t *testing.T) {
	doc, err := os.ReadFile("../FAULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range format.FaultGrammar.Kinds {
		want = append(want, faultspec.Row("cassette", k, k.Where))
	}
	if diff := cmp.Diff(want, faultspec.Rows(string(doc), "cassette")); diff != "" {
		t.Errorf("FAULTS.md's rows of replay mismatch (-want +got):\n%s", diff)
	}
	declared := []FaultKind{FaultDrop, FaultDelay, FaultEnd, FaultStatus, FaultFail}
	var kinds []FaultKind
	for _, k := range format.FaultGrammar.Kinds {
		kinds = append(kinds, FaultKind(k.Name))
	}
	if diff := cmp.Diff(declared, kinds); diff != "" {
		t.Errorf("the kinds cassette declares and replay's table differ (-declared +table):\n%s", diff)
	}
}
