package wire

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// headerOf is the header of a message the go-sdk decoded.
func headerOf(m jsonrpc.Message) Header {
	if r, ok := m.(*jsonrpc.Request); ok {
		return Header{Request: true, ID: r.ID, Method: r.Method}
	}
	r := m.(*jsonrpc.Response)
	return Header{ID: r.ID, HasResult: len(r.Result) > 0, HasError: r.Error != nil}
}

// FuzzDecodeHeader reads every input with DecodeHeader and with the
// go-sdk's own jsonrpc.DecodeMessage: both refuse it, or the header is
// that of the go-sdk's message.
func FuzzDecodeHeader(f *testing.F) {
	for _, s := range seeds {
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
		if diff := cmp.Diff(headerOf(want), got, cmp.Comparer(func(a, b jsonrpc.ID) bool { return a == b })); diff != "" {
			t.Fatalf("on %.200q: header mismatch (-go-sdk +wire):\n%s", data, diff)
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
