package canonjson

import (
	"strings"
	"testing"
)

// benchCall is a tools/call request as the go-sdk writes it: keys in
// struct order, so that its objects are re-ordered.
const benchCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p-7","io.modelcontextprotocol/protocolVersion":"2025-11-25"},"name":"search","arguments":{"query":"weather in Paris","limit":10,"filters":{"lang":["en","fr"],"safe":true}}}}`

// benchResult returns a tools/call result of about 64 KiB: text blocks
// with escapes and non-ASCII text, as a search tool returns them.
func benchResult() []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"content":[`)
	for i := 0; b.Len() < 64<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":"Result line with \"quotes\", a tab\tand a new line\n: Zürich, 東京, café. Lorem ipsum dolor sit amet, consectetur adipiscing elit."}`)
	}
	b.WriteString(`],"structuredContent":{"total":512,"items":[1,2.5,-3e2,true,null]},"isError":false}}`)
	return []byte(b.String())
}

func BenchmarkCanonical(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{{"call", []byte(benchCall)}, {"result64k", benchResult()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Canonical(bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
