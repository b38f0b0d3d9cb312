package wire

import (
	"bytes"
	stdjson "encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// headerOf is the header of a message the go-sdk decoded.
func headerOf(m jsonrpc.Message) Header {
	if r, ok := m.(*jsonrpc.Request); ok {
		return Header{Request: true, ID: r.ID, Method: r.Method, Params: r.Params}
	}
	r := m.(*jsonrpc.Response)
	return Header{ID: r.ID, HasResult: len(r.Result) > 0, HasError: r.Error != nil}
}

// trailingOf reports whether more than white space follows the first JSON
// value of data, as encoding/json reads it, if it reads one.
func trailingOf(data []byte) (trailing, ok bool) {
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	var v stdjson.RawMessage
	if dec.Decode(&v) != nil {
		return false, false
	}
	return len(bytes.TrimSpace(data[dec.InputOffset():])) > 0, true
}

// FuzzDecodeHeader reads every input with DecodeHeader and with the
// go-sdk's own jsonrpc.DecodeMessage: both refuse it, or the header is
// that of the go-sdk's message.
func FuzzDecodeHeader(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{ // the edges of DecodeHeader's reading without decoding
		`{"jsonrpc":"2.0","id":123456789012345,"result":{}}`,
		`{"jsonrpc":"2.0","id":-1234567890123456,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u0041","result":null}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\x7f\",\"method\":\"ping\"}",
		`{"jsonrpc":2,"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":5}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"id":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":1},"params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x","Params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/cal\u006c","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}} {}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"ping"} x`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[]}0`,
		"{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}} \t\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, gotErr := DecodeHeader(data)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("on %.200q: error %v, the go-sdk's %v", data, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if diff := cmp.Diff(headerOf(want), got, cmp.Comparer(func(a, b jsonrpc.ID) bool { return a == b }),
			cmpopts.IgnoreFields(Header{}, "Trailing")); diff != "" {
			t.Fatalf("on %.200q: header mismatch (-go-sdk +wire):\n%s", data, diff)
		}
		if trailing, ok := trailingOf(data); ok && got.Trailing != trailing {
			t.Fatalf("on %.200q: Trailing %v, encoding/json reads %v", data, got.Trailing, trailing)
		}
		if got.IsCall() != (got.Request && want.(*jsonrpc.Request).IsCall()) {
			t.Fatalf("on %.200q: IsCall %v", data, got.IsCall())
		}
	})
}

// DecodeHeader allocates nothing for a response's result, however large.
func TestDecodeHeaderCopiesNoResult(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":3,"result":{"text":"` + strings.Repeat("x", 64<<10) + `"}}`)
	const runs = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := DecodeHeader(data); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 1024 {
		t.Errorf("DecodeHeader of a %d-byte response allocates %d bytes, want no copy of its result", len(data), per)
	}
}

// DecodeHeader reads the header of a common message without decoding it:
// its allocations are the header's own (a method MCP does not name, a
// string id, the id as the go-sdk boxes it) and the one value it parses
// into; decoding the message the go-sdk's way takes one more for the
// version, and more for an error.
func TestDecodeHeaderCommonAllocs(t *testing.T) {
	for _, tc := range []struct {
		data string
		want float64
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"done"}]}}`, 2},
		{`{"jsonrpc":"2.0","id":"call-7","result":{}}`, 4},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`, 2},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/calls","params":{"name":"count","arguments":{}}}`, 3},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, 1},
		{`{"jsonrpc":"2.0","method":"notifications/messages","params":{"level":"info","data":"x"}}`, 2},
	} {
		data := []byte(tc.data)
		if got := testing.AllocsPerRun(100, func() { DecodeHeader(data) }); got > tc.want {
			t.Errorf("DecodeHeader(%s): %v allocations, want at most %v", tc.data, got, tc.want)
		}
	}
}
