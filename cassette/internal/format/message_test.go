package format

import (
	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/canonjson"
	"github.com/looprig/mcp/internal/testkit"
	"testing"
)

func BenchmarkScanMessage(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{{"call", []byte(testkit.BenchCall)}, {"result64k", testkit.BenchResult()}} {
		canon, err := canonjson.Canonical(bc.data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(canon)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ScanMessage(canon); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestScanMessage reads the members of canonical messages: keys unquoted,
// values as written (strings holding brackets and escapes included), ids
// as keys, and refuses what is no object or no JSON.
func TestScanMessage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want MsgInfo
	}{
		{`{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"a":["}",{"b":"\"]"}]}}`,
			MsgInfo{Kind: MsgCall, ID: "n:7", RawID: []byte("7"), Method: "tools/call", Params: []byte(`{"a":["}",{"b":"\"]"}]}`)}},
		{`{"id":"a\"b\u2028","jsonrpc":"2.0","method":"x\u0000y"}`,
			MsgInfo{Kind: MsgCall, ID: "s:a\"b\u2028", RawID: []byte(`"a\"b\u2028"`), Method: "x\x00y"}},
		{`{"id":3e0,"jsonrpc":"2.0","result":[1,[2,[3]],{}]}`,
			MsgInfo{Kind: MsgResponse, ID: "n:3", RawID: []byte("3e0"), Result: []byte(`[1,[2,[3]],{}]`)}},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"\u00e9":true}}`,
			MsgInfo{Kind: MsgNote, Method: "notifications/progress", Params: []byte(`{"\u00e9":true}`)}},
	} {
		got, err := ScanMessage([]byte(tc.in))
		if err != nil {
			t.Errorf("ScanMessage(%s): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ScanMessage(%s) (-want +got):\n%s", tc.in, diff)
		}
	}
	var keys []string
	if err := Members([]byte(`{"\u00e9":1,"a\"b":{"c":"}"},"z":[]}`), func(key, val []byte) error {
		keys = append(keys, string(key)+"="+string(val))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"é=1", `a"b={"c":"}"}`, "z=[]"}, keys); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[1]`, `{"a":1,}`, `{"a":}`, `{"a":1}x}`, `{"a"}`, `{"a":"x}`} {
		if _, err := ScanMessage([]byte(bad)); err == nil {
			t.Errorf("ScanMessage(%s) succeeded, want an error", bad)
		}
	}
	if end, err := SkipValue([]byte(`[{"a":"]"},2]`), 1); err != nil || end != 10 {
		t.Errorf("SkipValue = %d, %v; want 10", end, err)
	}
}
