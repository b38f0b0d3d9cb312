package wire

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestEnvelopes gives the key rule its refused and accepted cases, and
// shows the id read as sent.
func TestEnvelopes(t *testing.T) {
	const ok = ""
	for _, tc := range []struct {
		name, in string
		wantErr  string // in the error; ok for none
		wantIDs  []string
	}{
		{"plain", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, ok, []string{"7"}},
		{"no id", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ok, []string{""}},
		{"id as sent", `{"jsonrpc":"2.0","id": 9007199254740993 ,"method":"ping"}`, ok, []string{"9007199254740993"}},
		{"string id", `{"id":"a\"b","jsonrpc":"2.0","method":"ping"}`, ok, []string{`"a\"b"`}},
		{"id holding brackets", `{"jsonrpc":"2.0","id":"{[\"}","method":"ping","params":[{"a":"]"}]}`, ok, []string{`"{[\"}"`}},
		{"_META", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_META":{}}}`, `params key "_META" would be read as "_meta"`, nil},
		{"_Meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_Meta":{}}}`, `"_Meta"`, nil},
		{"PARAMS beside params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","PARAMS":{},"params":{}}`, `"PARAMS"`, nil},
		{"Method", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, `message key "Method" would be read as "method"`, nil},
		{"a long s folds to s", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"param\u017f\":{}}", `would be read as "params"`, nil},
		{"a Kelvin sign folds to k", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\u212aey":1,"key":2}}`, `equal ignoring case`, nil},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, `message key "method" is given twice`, nil},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `"id" is given twice`, nil},
		{"escaped duplicate", `{"jsonrpc":"2.0","id":1,"method":"a","\u006dethod":"b"}`, `given twice`, nil},
		{"duplicate _meta key", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"v":1,"v":2}}}`, `params._meta key "v" is given twice`, nil},
		{"_meta keys differing in case", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"v":1,"V":2}}}`, ok, []string{"1"}},
		{"other params keys equal ignoring case", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"foo":1,"FOO":2}}`, `equal ignoring case`, nil},
		{"arguments not examined", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1,"a":2,"A":3}}}`, ok, []string{"1"}},
		{"keys in a nested value of the envelope", `{"jsonrpc":"2.0","id":1,"result":{"x":1,"x":2}}`, ok, []string{"1"}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"ping"}]`, ok, []string{"1", "", `"x"`}},
		{"batch, second ambiguous", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping","METHOD":"x"}]`, `message 2 of the batch`, nil},
		{"bytes after the message", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"Method":1}`, ok, []string{"1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ReadBatch([]byte(tc.in)); err != nil {
				t.Fatalf("ReadBatch: %v (the case must be a message the go-sdk reads)", err)
			}
			envs, err := Envelopes([]byte(tc.in))
			if tc.wantErr != ok {
				if !errors.Is(err, ErrAmbiguousKey) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Envelopes error = %v, want ErrAmbiguousKey naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Envelopes: %v", err)
			}
			var ids []string
			for _, e := range envs {
				ids = append(ids, string(e.ID))
			}
			if diff := cmp.Diff(tc.wantIDs, ids); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSameID names the ids the go-sdk carries back unchanged and those it
// does not.
func TestSameID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		same bool
	}{
		{"1", true},
		{"0", true},
		{"-0", true},
		{"1e2", true},
		{"1.0", true},
		{"100e-2", true},
		{"0e999999999999", true},
		{"9007199254740992", true},
		{"9007199254740993", false},
		{"-9223372036854775808", true},
		{"9223372036854775807", false}, // a float64 rounds it past the int64 range
		{"123456789012345678901234567890", false},
		{"1.5", false},
		{"1e-400", false},
		{`"abc"`, true},
		{`"\u0041\n\/"`, true},
		{`"\ud83d\ude00"`, true},
		{`"` + "\xef\xbf\xbd" + `"`, true}, // U+FFFD sent is U+FFFD kept
		{`"\ud800"`, false},
		{`"\ud800x"`, false},
		{`"\ude00\ud83d"`, false},
		{"\"a\xffb\"", false},
	} {
		if tc.id == "0e999999999999" {
			// The go-sdk refuses it (past float64); integerOf reads it.
			if d, ok := integerOf([]byte(tc.id)); !ok || d != "0" {
				t.Errorf("integerOf(%s) = %q, %v; want 0", tc.id, d, ok)
			}
			continue
		}
		data := []byte(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`)
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			t.Errorf("%s: the go-sdk refuses it (%v); the case must be one it reads", tc.id, err)
			continue
		}
		if got := SameID([]byte(tc.id), msg.(*jsonrpc.Request).ID); got != tc.same {
			t.Errorf("SameID(%s, the go-sdk's %v) = %v, want %v", tc.id, msg.(*jsonrpc.Request).ID.Raw(), got, tc.same)
		}
	}
}

// TestIntegerOf reads numbers past what any decoder holds, by their digits.
func TestIntegerOf(t *testing.T) {
	for in, want := range map[string]string{
		"1e999999999999":          "",
		"1e99999999999999999999":  "",
		"1e-99999999999999999999": "",
		"0e99999999999999999999":  "0",
		"-0.00e-99999999999999":   "0",
		"12.5e1":                  "125",
		"-1234567890123456789":    "-1234567890123456789",
		"12345678901234567890":    "",
		"1e18":                    "1000000000000000000",
		"1e19":                    "",
		"0001":                    "1",
		"1.":                      "1",
		"e5":                      "",
		"1x":                      "",
	} {
		got, ok := integerOf([]byte(in))
		if got != want || ok != (want != "") {
			t.Errorf("integerOf(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// FuzzEnvelopes: for every input the go-sdk reads, Envelopes returns one
// envelope per message whose id is the one the go-sdk read; and where it
// finds no ambiguous key, a reader that matches keys ignoring case
// (encoding/json) reads the method, name, URI and protocol version the
// go-sdk reads.
func FuzzEnvelopes(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","NAME":"b"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Uri":"a"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, _, err := ReadBatch(data)
		if err != nil {
			return
		}
		envs, err := Envelopes(data)
		if err != nil {
			if !errors.Is(err, ErrAmbiguousKey) {
				t.Fatalf("on %.200q: Envelopes error %v does not wrap ErrAmbiguousKey", data, err)
			}
			return
		}
		if len(envs) != len(msgs) {
			t.Fatalf("on %.200q: %d envelopes for %d messages", data, len(envs), len(msgs))
		}
		raws := elements(data)
		for i, msg := range msgs {
			var id jsonrpc.ID
			switch m := msg.(type) {
			case *jsonrpc.Request:
				id = m.ID
			case *jsonrpc.Response:
				id = m.ID
			}
			var v any
			if envs[i].ID != nil {
				if err := Unmarshal(envs[i].ID, &v); err != nil {
					t.Fatalf("on %.200q: envelope id %q does not decode: %v", data, envs[i].ID, err)
				}
			}
			if got, err := jsonrpc.MakeID(v); err != nil || got != id {
				t.Fatalf("on %.200q: envelope id %q reads as %v, the go-sdk's id is %v", data, envs[i].ID, got.Raw(), id.Raw())
			}
			if req, ok := msg.(*jsonrpc.Request); ok && i < len(raws) {
				checkFoldedReading(t, raws[i], req)
			}
		}
	})
}

// elements returns data's messages as bytes: the elements of a batch, or
// data itself.
func elements(data []byte) [][]byte {
	var raw []stdjson.RawMessage
	if Unmarshal(data, &raw) == nil {
		var out [][]byte
		for _, r := range raw {
			out = append(out, r)
		}
		return out
	}
	return [][]byte{data}
}

// folded is a message as encoding/json reads it, matching keys ignoring
// case.
type folded struct {
	Method string `json:"method"`
	Params struct {
		Name string         `json:"name"`
		URI  string         `json:"uri"`
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

func checkFoldedReading(t *testing.T, raw []byte, req *jsonrpc.Request) {
	t.Helper()
	var f folded
	if stdjson.Unmarshal(raw, &f) != nil {
		return // not a reading to compare
	}
	var exact folded
	exact.Method = req.Method
	if len(req.Params) > 0 && Unmarshal(req.Params, &exact.Params) != nil {
		return
	}
	type view struct{ Method, Name, URI, Version string }
	version := func(m map[string]any) string { v, _ := m["io.modelcontextprotocol/protocolVersion"].(string); return v }
	got := view{f.Method, f.Params.Name, f.Params.URI, version(f.Params.Meta)}
	want := view{exact.Method, exact.Params.Name, exact.Params.URI, version(exact.Params.Meta)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("on %.200q: with no ambiguous key, encoding/json reads otherwise (-go-sdk +encoding/json):\n%s", raw, diff)
	}
}

// idKey finds the id in the go-sdk's encoding of a response.
var idKey = regexp.MustCompile(`^\{"jsonrpc":"2.0","id":(.*),"result":\{\}\}$`)

// FuzzSameID reads a request with any id as the go-sdk does, encodes the
// go-sdk's reply to it, and compares the id sent with the id replied, by
// value, apart from SameID: SameID never calls a changed id the same, and
// calls the same every id of valid JSON that is.
func FuzzSameID(f *testing.F) {
	for _, s := range []string{"1", "1.5", "9007199254740993", "1e2", "-0", `"x"`, `"\ud800"`, "\"\xff\"", `"\ud83d\ude00"`, "123456789012345678901234567890", "0.1e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		msg, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":` + tok + `,"method":"ping"}`))
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.ID.IsValid() {
			return
		}
		out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: stdjson.RawMessage("{}")})
		if err != nil {
			t.Fatal(err)
		}
		m := idKey.FindSubmatch(out)
		if m == nil {
			t.Fatalf("no id in the go-sdk's reply %s", out)
		}
		raw := []byte(strings.TrimSpace(tok))
		same := SameID(raw, req.ID)
		equal, known := equalValues(raw, m[1])
		switch {
		case !known:
		case same && !equal:
			t.Fatalf("SameID(%q) = true, but the go-sdk replies with id %s", raw, m[1])
		case !same && equal && stdjson.Valid(raw):
			t.Fatalf("SameID(%q) = false, but the go-sdk replies with id %s, the same value", raw, m[1])
		}
	})
}

// equalValues compares two JSON ids by value: numbers as exact rationals,
// strings after decoding, counting the U+FFFD that decoding put in. known
// is false where it cannot tell cheaply (a number with a huge exponent).
func equalValues(a, b []byte) (equal, known bool) {
	if a[0] == '"' || b[0] == '"' {
		var sa, sb string
		if stdjson.Unmarshal(a, &sa) != nil || stdjson.Unmarshal(b, &sb) != nil {
			return false, true
		}
		replaced := strings.Count(sa, "\ufffd") != bytes.Count(a, []byte("\xef\xbf\xbd"))+strings.Count(strings.ToLower(string(a)), `\ufffd`)
		return sa == sb && !replaced, true
	}
	if len(a) > 100 || regexp.MustCompile(`[eE][+-]?\d{4,}`).Match(a) {
		return false, false
	}
	ra, ok1 := new(big.Rat).SetString(string(a))
	rb, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && ra.Cmp(rb) == 0, true
}

// FuzzProtocolVersion compares ProtocolVersion with the go-sdk's reading of
// a request's _meta, through the decoder configured as the go-sdk's.
func FuzzProtocolVersion(f *testing.F) {
	for _, s := range []string{
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`{"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}`,
		`{"_meta":null}`, `[]`, `{"_meta":[]}`, `{"name":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		want := ""
		if len(params) > 0 && goSDKUnmarshal(params, &p) == nil {
			want, _ = p.Meta["io.modelcontextprotocol/protocolVersion"].(string)
		}
		if got := ProtocolVersion(params); got != want {
			t.Fatalf("ProtocolVersion(%.200q) = %q, the go-sdk reads %q", params, got, want)
		}
	})
}
