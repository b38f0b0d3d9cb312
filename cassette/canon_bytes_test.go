package cassette

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var canonSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"b":1,"a":{"d":[1,2,{"z":null,"y":true}],"c":"x"}}`,
	`{"a":1,"a":2}`,
	`{"b":{"y":1,"x":2,"y":3},"a":[]}`,
	`{"html":"<&> \u003c\u0026\u003e","esc":"\"\\\/\b\f\n\r\t\u0001","uni":"é\u00e9 \u2028\u2029 😀 \ud83d\ude00"}`,
	` { "sp" : [ 1 , -0.5e+10 , 1E3 , 0 ] , "t" : false } `,
	`"plain"`, `12`, `[]`, `{}`, `null`,
	"{\"bad\":\"\xff\xfe\",\"\xc3\":1}",
	`{"k\u0041":1,"kA":2,"kB":3}`,
}

// TestCanonicalBytesMatchesTree: the byte-level canonicaliser gives the
// bytes the tree round trip gives (which the golden cassettes hold).
func TestCanonicalBytesMatchesTree(t *testing.T) {
	for _, s := range canonSeeds {
		checkCanonical(t, []byte(s))
	}
	already := []byte(`{"a":[1,{"b":"c"}],"d":"e"}`)
	got, err := canonicalBytes(already)
	if err != nil || &got[0] != &already[0] {
		t.Errorf("canonical input was copied (%v), want it returned as is", err)
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `tru`, `01`, `-`, `1.`, `1e`, `"x`, `{} x`, `{"a":1 "b":2}`} {
		if _, err := canonicalBytes([]byte(bad)); err == nil {
			t.Errorf("canonicalBytes(%q) succeeded, want an error", bad)
		}
	}
}

func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	want, err := canonical(data)
	if err != nil {
		t.Fatalf("canonical(%q): %v", data, err)
	}
	got, err := canonicalBytes(data)
	if err != nil {
		t.Fatalf("canonicalBytes(%q): %v", data, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("canonicalBytes(%q) mismatch (-tree +bytes):\n%s", data, diff)
	}
}

func FuzzCanonicalBytes(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkCanonical)
}
