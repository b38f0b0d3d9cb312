package jsondiff_test

import (
	"encoding/json"
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
