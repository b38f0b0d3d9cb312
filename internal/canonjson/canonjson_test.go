package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// treeCanonical is the reference: decode into Go values and encode again.
// It is the definition Canonical is held to, here and in FuzzCanonical.
func treeCanonical(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

var seeds = []string{
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

// TestCanonicalMatchesTree: the one-pass encoder gives the bytes the tree
// round trip gives, returns canonical input as is, and refuses what is not
// one JSON value.
func TestCanonicalMatchesTree(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
	already := []byte(`{"a":[1,{"b":"c"}],"d":"e"}`)
	got, err := Canonical(already)
	if err != nil || &got[0] != &already[0] {
		t.Errorf("canonical input was copied (%v), want it returned as is", err)
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `tru`, `01`, `-`, `1.`, `1e`, `"x`, `{} x`, `{"a":1 "b":2}`} {
		if _, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%q) succeeded, want an error", bad)
		}
	}
}

func check(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	want, err := treeCanonical(data)
	if err != nil {
		t.Fatalf("treeCanonical(%q): %v", data, err)
	}
	got, err := Canonical(data)
	if err != nil {
		t.Fatalf("Canonical(%q): %v", data, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Canonical(%q) mismatch (-tree +bytes):\n%s", data, diff)
	}
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]any{"z": "<a&b>", "a": []int{1, 2}, "m": struct {
		B int `json:"b"`
		A int `json:"a"`
	}{2, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[1,2],"m":{"a":1,"b":2},"z":"<a&b>"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	if got := string(AppendString([]byte("x"), "a\"\u2028<")); got != `x"a\"\u2028<"` {
		t.Errorf("AppendString = %s", got)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(check)
}

// TestDepthAtTheEdge: MaxDepth levels of arrays or objects are read,
// one more is ErrTooDeep, as encoding/json refuses it; a value nested
// inside outer levels has that many fewer.
func TestDepthAtTheEdge(t *testing.T) {
	arrays := func(n int) []byte {
		return append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
	}
	objects := func(n int) []byte {
		return append(bytes.Repeat([]byte(`{"a":`), n-1), append([]byte("{}"), bytes.Repeat([]byte("}"), n-1)...)...)
	}
	for name, nest := range map[string]func(int) []byte{"arrays": arrays, "objects": objects} {
		if _, err := Canonical(nest(MaxDepth)); err != nil {
			t.Errorf("%s: Canonical of %d levels: %v, want it read", name, MaxDepth, err)
		}
		if _, err := Canonical(nest(MaxDepth + 1)); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%s: Canonical of %d levels: %v, want ErrTooDeep", name, MaxDepth+1, err)
		}
		var v any
		if err := json.Unmarshal(nest(MaxDepth), &v); err != nil {
			t.Errorf("%s: encoding/json refuses %d levels (%v): the bound is not its own", name, MaxDepth, err)
		}
		if err := json.Unmarshal(nest(MaxDepth+1), &v); err == nil {
			t.Errorf("%s: encoding/json reads %d levels: the bound is not its own", name, MaxDepth+1)
		}
		if _, err := CanonicalNested(nest(MaxDepth-1), 1); err != nil {
			t.Errorf("%s: CanonicalNested of %d levels in 1: %v, want it read", name, MaxDepth-1, err)
		}
		if _, err := CanonicalNested(nest(MaxDepth), 1); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%s: CanonicalNested of %d levels in 1: %v, want ErrTooDeep", name, MaxDepth, err)
		}
	}
	// Far past the bound: refused, not a stack overflow.
	if _, err := Canonical(arrays(6_000_000)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Canonical of 6,000,000 levels: %v, want ErrTooDeep", err)
	}
}
