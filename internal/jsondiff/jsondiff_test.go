package jsondiff_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/jsondiff"
)

func TestDiff(t *testing.T) {
	old := map[string]any{"b": json.Number("2"), "a": "x", "list": []any{"one", "two"}}
	new := map[string]any{"b": json.Number("3"), "a": "x", "list": []any{"one", "two"}}
	want := `--- recorded
+++ live
@@ -1,6 +1,6 @@
 {
   "a": "x",
-  "b": 2,
+  "b": 3,
   "list": [
     "one",
     "two"
`
	for i := 0; i < 20; i++ { // the same bytes every time
		if got := jsondiff.Diff("recorded", old, "live", new); got != want {
			t.Fatalf("Diff =\n%s\nwant\n%s", got, want)
		}
	}
	if got := jsondiff.Diff("a", old, "b", old); got != "" {
		t.Errorf("Diff of equal values = %q, want \"\"", got)
	}
}

func TestDiffNumbersAsWritten(t *testing.T) {
	got := jsondiff.Bytes("old", []byte(`{"n":1.50,"big":12345678901234567890}`), "new", []byte(`{"n":1.5,"big":12345678901234567890}`))
	want := "--- old\n+++ new\n@@ -1,4 +1,4 @@\n {\n   \"big\": 12345678901234567890,\n-  \"n\": 1.50\n+  \"n\": 1.5\n }\n"
	if got != want {
		t.Errorf("Bytes =\n%s\nwant\n%s", got, want)
	}
}

func TestDiffAbsent(t *testing.T) {
	got := jsondiff.Diff("old", jsondiff.Absent, "new", map[string]any{"a": true})
	want := "--- old\n+++ new\n@@ -0,0 +1,3 @@\n+{\n+  \"a\": true\n+}\n"
	if got != want {
		t.Errorf("Diff from Absent =\n%s\nwant\n%s", got, want)
	}
	if got := jsondiff.Diff("old", nil, "new", jsondiff.Absent); got != "--- old\n+++ new\n@@ -1,1 +0,0 @@\n-null\n" {
		t.Errorf("Diff of null to Absent = %q", got)
	}
}

func TestBytesNotJSON(t *testing.T) {
	got := jsondiff.Bytes("old", []byte("plain text"), "new", []byte("plain words"))
	want := "--- old\n+++ new\n@@ -1,1 +1,1 @@\n-plain text\n+plain words\n"
	if got != want {
		t.Errorf("Bytes of text =\n%s\nwant\n%s", got, want)
	}
}

// TestIndentedSizeIsExact: IndentedSize is the size json.Indent gives.
func TestIndentedSizeIsExact(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `1`, `"a,b:{["`, `{"a":[1,2,{"b":{}}],"c":[[]],"d":"x\"]"}`, `[[[[1]]],{"k":[{}, {}]}]`} {
		var compact, indented bytes.Buffer
		if err := json.Compact(&compact, []byte(s)); err != nil {
			t.Fatal(err)
		}
		json.Indent(&indented, compact.Bytes(), "", "  ")
		if got := jsondiff.IndentedSize(compact.Bytes()); got != indented.Len() {
			t.Errorf("IndentedSize(%s) = %d, want %d", s, got, indented.Len())
		}
	}
}

// TestIndentBoundedAtTheEdge: a value whose indented form is at most
// MaxGrowth times its size plus 64 KiB is indented; one a byte larger is
// shown compact. 10,000 levels of arrays (20 KB) would indent to 200 MB.
func TestIndentBoundedAtTheEdge(t *testing.T) {
	// n levels of arrays around a string of l bytes: each byte of the
	// string adds 1 to the indented size and MaxGrowth to the limit.
	// Around them, k members "a":0 of an object shift the sizes.
	var k int
	value := func(n, l int) []byte {
		v := strings.Repeat("[", n) + `"` + strings.Repeat("x", l) + `"` + strings.Repeat("]", n)
		if k > 0 {
			v = `{` + strings.Repeat(`"a":0,`, k) + `"b":` + v + `}`
		}
		return []byte(v)
	}
	over := func(v []byte) int { return jsondiff.IndentedSize(v) - (jsondiff.MaxGrowth*len(v) + 64<<10) }
	edges := map[int]int{} // by bytes past the limit: 0 and 1
	for i := 0; i < 30 && (edges[0] == 0 || edges[1] == 0); i++ {
		n := 200 + i/3
		k = i % 3
		d0 := over(value(n, 0))
		for _, past := range []int{0, 1} {
			if d0 < past || (d0-past)%(jsondiff.MaxGrowth-1) != 0 {
				continue
			}
			v := value(n, (d0-past)/(jsondiff.MaxGrowth-1))
			if over(v) != past {
				t.Fatalf("%d levels: %d bytes past the limit, want %d", n, over(v), past)
			}
			edges[past]++
			if compact := jsondiff.IndentBytes(v) == string(v)+"\n"; compact != (past > 0) {
				t.Errorf("%d levels, %d bytes past the limit: shown compact %v", n, past, compact)
			}
		}
	}
	if edges[0] == 0 || edges[1] == 0 {
		t.Fatalf("edges found: %v, want a value at the limit and one a byte past it", edges)
	}
	k = 0
	deep := value(10000, 1)
	if got := jsondiff.IndentBytes(deep); got != string(deep)+"\n" {
		t.Errorf("10,000 levels indented to %d bytes, want them compact", len(got))
	}
}
