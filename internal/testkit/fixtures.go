package testkit

import "strings"

// BenchCall is a tools/call request as the go-sdk writes it: keys in
// struct order, so that its objects are re-ordered. The JSON benchmarks
// (canonjson, wire, the cassette format) read it.
const BenchCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p-7","io.modelcontextprotocol/protocolVersion":"2025-11-25"},"name":"search","arguments":{"query":"weather in Paris","limit":10,"filters":{"lang":["en","fr"],"safe":true}}}}`

// BenchResult returns a tools/call result of about 64 KiB: text blocks
// with escapes and non-ASCII text, as a search tool returns them.
func BenchResult() []byte {
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

// OneFaultOfEachKind is one fake-server fault of each kind, in its text
// form: the tables of the paths that serve a fake (fakeserver, mcptest,
// mcpscript) run each. fakeserver's path test fails when a kind is
// missing.
var OneFaultOfEachKind = []string{
	"delay@lookup:1ms", "hang@lookup", "error@lookup", "panic@lookup",
	"oversize@lookup:10", "flood-notifications@lookup:1", "env",
	"crash@lookup", "malformed@lookup", "flood-stderr:10", "ignore-eof",
	"ignore-sigterm", "grandchild",
	"drop@lookup:0", "drop-no-id@lookup:0", "delay-headers:1ms",
	"unauthorized", "forbidden", "gone@lookup", "server-error", "no-get",
	"redirect", "foreign-endpoint",
	"task@lookup", "task-required@lookup", "task-fail@lookup",
	"task-input@lookup", "task-expire:50ms", "task-poll-error@lookup:1",
	"skill-digest@pdf-processing", "skill-size@pdf-processing",
	"skill-frontmatter@pdf-processing", "skill-changed@pdf-processing",
}
