package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

// cases are the edge cases the scanner is held to encoding/json on.
var cases = []string{
	// literals and numbers
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `True`,
	`0`, `-0`, `01`, `-01`, `1.`, `.5`, `1.5`, `-`, `+1`, `1e`, `1e+`, `1E-7`, `1e+09`, `-0.0e0`,
	`123456789012345678901234567890`, `0x10`, `1_000`, `Infinity`, `NaN`,
	// strings: escapes, unicode, control characters
	`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u0041"`, `"\u00e9"`, `"\uD83D\uDE00"`,
	`"\ud800"`, `"\u12"`, `"\u12G4"`, `"\x"`, `"\'"`, `"\`, `"\"`, `"abc`, `"`, "\"a\x01b\"", "\"\x7f\"",
	"\"\xff\xfe\"", `"é 東京 😀"`, "\"\u2028\u2029\"", `"<&>"`,
	// white space everywhere, and what is not white space
	" \t\n\r{ \t\n\r\"a\" \t\n\r: \t\n\r[ \t\n\r1 \t\n\r, \t\n\r2 \t\n\r] \t\n\r} \t\n\r",
	"\v1", "1\f", "\u00a01", "[1\u00a0]",
	// structure
	`[]`, `{}`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a"}`, `{"a":}`,
	`{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`, `{a:1}`, `{'a':1}`, `{"a":1}}`, `[[]`, `[]]`, `[}`, `{]`,
	`{"a":[{"b":{"c":[null,true,{"d":"e"}]}}]}`, `{"a":1,"a":2}`, `{"":0}`, `{"\u0061":1,"a":2}`,
	// more than one value, or none
	``, ` `, `1 2`, `{} {}`, `[] x`, `"a""b"`,
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

// Every prefix of a valid value short of the whole is refused, as
// encoding/json refuses it, except the prefixes that are values in
// themselves (of a number).
func TestTruncated(t *testing.T) {
	whole := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"a\"b","arguments":{"x":[1.5e3,true,null,"\u00e9"]}}}`
	for n := range len(whole) {
		if got, want := Valid([]byte(whole[:n])), json.Valid([]byte(whole[:n])); got || want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v, want both false", whole[:n], got, want)
		}
	}
	for _, num := range []string{"-12.5e+3"} {
		for n := 1; n <= len(num); n++ {
			if got, want := Valid([]byte(num[:n])), json.Valid([]byte(num[:n])); got != want {
				t.Errorf("Valid(%q) = %v, encoding/json says %v", num[:n], got, want)
			}
		}
	}
}

func nest(open, close string, n int) []byte {
	return []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
}

// TestDepthAtTheEdge: MaxDepth levels are read, one more is ErrTooDeep,
// as encoding/json refuses it; levels open around the scanner count.
func TestDepthAtTheEdge(t *testing.T) {
	shapes := map[string][2]string{"arrays": {"[", "]"}, "objects": {`{"a":`, "}"}, "mixed": {`[{"a":`, "}]"}}
	for name, sh := range shapes {
		per := 1
		if name == "mixed" {
			per = 2
		}
		ok, deep := nest(sh[0], sh[1], MaxDepth/per), nest(sh[0], sh[1], MaxDepth/per+1)
		if name == "mixed" {
			deep = append(append([]byte("["), ok...), ']')
		}
		if !Valid(ok) || !json.Valid(ok) {
			t.Errorf("%s: %d levels: Valid %v, encoding/json %v, want both true", name, MaxDepth, Valid(ok), json.Valid(ok))
		}
		s := Scanner{Data: deep}
		if err := s.Skip(); !errors.Is(err, ErrTooDeep) || json.Valid(deep) {
			t.Errorf("%s: %d levels: Skip %v, encoding/json valid %v, want ErrTooDeep and false", name, MaxDepth+1, err, json.Valid(deep))
		}
		s = Scanner{Data: ok, Depth: 1}
		if err := s.Skip(); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%s: %d levels inside 1: %v, want ErrTooDeep", name, MaxDepth, err)
		}
	}
	// Far past the bound: refused at the bound, the stack of levels kept
	// small.
	far := nest("[", "]", 6_000_000)
	s := Scanner{Data: far}
	if err := s.Skip(); !errors.Is(err, ErrTooDeep) || s.Pos != MaxDepth {
		t.Errorf("Skip of 6,000,000 levels: %v at %d, want ErrTooDeep at %d", err, s.Pos, MaxDepth)
	}
}

// A member is a key, as encoding/json's decoder reads it, and a value as
// written.
type member struct{ Key, Val string }

// decoderMembers returns the members of the object data as a
// json.Decoder's Token stream gives them.
func decoderMembers(data []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, false
		}
		ms = append(ms, member{tok.(string), string(val)})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return ms, true
}

// scanMembers returns the members of the object data as Members gives
// them, keys unquoted.
func scanMembers(data []byte) ([]member, error) {
	s := Scanner{Data: data}
	var ms []member
	err := s.Members(func(key, val []byte) error {
		k, err := Unquote(key)
		if err != nil {
			return err
		}
		ms = append(ms, member{string(k), string(val)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.Space(); s.Pos != len(data) {
		return nil, ErrSyntax
	}
	return ms, nil
}

// checkMembers holds Members to the decoder's Token stream on data.
func checkMembers(t *testing.T, data []byte) {
	t.Helper()
	want, ok := decoderMembers(data)
	if !ok || !json.Valid(data) {
		if _, err := scanMembers(data); err == nil && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
			t.Errorf("Members(%q) read an object encoding/json refuses", data)
		}
		return
	}
	got, err := scanMembers(data)
	if err != nil {
		t.Fatalf("Members(%q): %v", data, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Members(%q) (-decoder +scanner):\n%s", data, diff)
	}
}

func TestMembersMatchDecoder(t *testing.T) {
	for _, c := range cases {
		checkMembers(t, []byte(c))
	}
	checkMembers(t, []byte(` { "a\u0041" : [ 1 , { "b" : "\"}" } ] , "é\n" : -1.5e3 , "a" : null } `))
}

// TestString: the end of a string is its first quote not escaped, and
// what it holds is told.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		end  int
		str  Str
		fail bool
	}{
		{in: `"abc"x`, end: 5},
		{in: `"a\"b"x`, end: 6, str: Escaped},
		{in: `"\\"x`, end: 4, str: Escaped},
		{in: `"\u00e9"`, end: 8, str: Escaped},
		{in: `"\u00"`, end: 6, str: Escaped | Invalid},
		{in: `"\q"`, end: 4, str: Escaped | Invalid},
		{in: "\"é\"", end: 4, str: NonASCII},
		{in: "\"\x01\"", end: 3, str: Invalid},
		{in: `"abc`, fail: true},
		{in: `"abc\"`, fail: true},
		{in: `"\`, fail: true},
		{in: `abc"`, fail: true},
	} {
		s := Scanner{Data: []byte(tc.in)}
		str, err := s.String()
		if tc.fail {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("String(%q) = %v, want ErrSyntax", tc.in, err)
			}
			continue
		}
		if err != nil || s.Pos != tc.end || str != tc.str {
			t.Errorf("String(%q) = %b, %v, end %d; want %b, end %d", tc.in, str, err, s.Pos, tc.str, tc.end)
		}
	}
}

// TestUnquote: the text is encoding/json's, and a slice of the input when
// nothing is to decode.
func TestUnquote(t *testing.T) {
	for _, c := range []string{`"a"`, `""`, `"a\"b"`, `"\u00e9\uD83D\uDE00"`, `"\ud800"`, "\"\xff\"", "\"é\"", "\"\x01\"", `"\q"`, `a`, `"`} {
		var want string
		werr := json.Unmarshal([]byte(c), &want)
		got, err := Unquote([]byte(c))
		if (err != nil) != (werr != nil) || string(got) != want {
			t.Errorf("Unquote(%q) = %q, %v; encoding/json gives %q, %v", c, got, err, want, werr)
		}
	}
	in := []byte(`"plain"`)
	if got, _ := Unquote(in); &got[0] != &in[1] {
		t.Errorf("Unquote of a plain string copied it")
	}
}

// FuzzScan holds the scanner to encoding/json: Valid agrees with
// json.Valid, on the input and on each prefix of it, and an object's
// members are those the decoder's Token stream gives.
func FuzzScan(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		if n := len(data) / 2; Valid(data[:n]) != json.Valid(data[:n]) {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data[:n], Valid(data[:n]), json.Valid(data[:n]))
		}
		checkMembers(t, data)
	})
}
