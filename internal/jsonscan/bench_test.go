package jsonscan

import (
	"strings"
	"testing"
)

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

func BenchmarkSkip(b *testing.B) {
	data := benchResult()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := Scanner{Data: data}
		if err := s.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}
