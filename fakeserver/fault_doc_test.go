package fakeserver

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/faultspec"
)

// paths are the paths a fake is served by, as FAULTS.md names them.
var paths = []struct {
	name string
	p    Path
}{
	{"in-process", Path{}},
	{"stdio child", Path{Child: true}},
	{"HTTP", Path{HTTP: true}},
	{"HTTP child", Path{HTTP: true, Child: true}},
	{"SSE", Path{HTTP: true, SSE: true}},
	{"SSE child", Path{HTTP: true, SSE: true, Child: true}},
}

// where says where a kind acts, from [Fault.ActsOn].
func where(k FaultKind) string {
	var on []string
	for _, p := range paths {
		if (Fault{Kind: k}).ActsOn(p.p) {
			on = append(on, p.name)
		}
	}
	if len(on) == len(paths) {
		return "fake: every path"
	}
	return "fake: " + strings.Join(on, ", ")
}

// TestFaultsDocument: FAULTS.md's table lists every kind of the fake, in
// the table's order, with its text form, where it acts (Fault.ActsOn), its
// target and its argument; and nothing else as the fake's.
func TestFaultsDocument(t *testing.T) {
	doc, err := os.ReadFile("../FAULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range kindTable {
		want = append(want, faultspec.Row("fakeserver", k.spec, where(FaultKind(k.spec.Name))))
	}
	if diff := cmp.Diff(want, faultspec.Rows(string(doc), "fakeserver")); diff != "" {
		t.Errorf("FAULTS.md's rows of the fake mismatch (-want +got):\n%s", diff)
	}
}
