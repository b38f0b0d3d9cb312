package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodedAtMost's bound is never below the encoding's length, whatever
// bytes the strings hold (each byte value, escapes of six bytes, invalid
// UTF-8, U+2028), and it gives none for a result it cannot bound without
// encoding it.
func TestEncodedAtMost(t *testing.T) {
	var every strings.Builder
	for b := range 256 {
		every.WriteByte(byte(b))
	}
	texts := []string{"", "sunny", every.String(), strings.Repeat("<", 1000), strings.Repeat("\x01", 1000),
		strings.Repeat("\xff", 1000), strings.Repeat("\u2028", 300), `"\`, "naïve ☃ 𝄞"}
	text := func(ss ...string) []mcp.Content {
		var cs []mcp.Content
		for _, s := range ss {
			cs = append(cs, &mcp.TextContent{Text: s})
		}
		return cs
	}
	bounded := []*mcp.CallToolResult{
		{},
		{Content: []mcp.Content{}},
		{Content: text(texts...)},
		{Content: text(texts...), IsError: true, RequestState: every.String()},
		{Content: text(strings.Repeat("&", 1<<16))},
		{Content: text(make([]string, 100)...), IsError: true},
		{RequestState: strings.Repeat("<", 1000)},
	}
	for i, res := range bounded {
		n, ok := encodedAtMost(res)
		if !ok {
			t.Errorf("result %d: no bound", i)
			continue
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		if len(b) > n {
			t.Errorf("result %d: encodes in %d bytes, over its bound %d", i, len(b), n)
		}
	}
	// Per byte of text, the bound is the worst escape, six bytes: one
	// more byte of text raises it by six, so a result one byte longer than
	// what fits is sure to be encoded and measured.
	short, _ := encodedAtMost(&mcp.CallToolResult{Content: text("ab")})
	long, _ := encodedAtMost(&mcp.CallToolResult{Content: text("abc")})
	if long-short != 6 {
		t.Errorf("a byte more of text raises the bound by %d, want 6", long-short)
	}
	unbounded := map[string]*mcp.CallToolResult{
		"_meta":              {Meta: mcp.Meta{"k": "v"}, Content: text("x")},
		"structured content": {StructuredContent: map[string]any{"k": "v"}},
		"input requests":     {InputRequests: mcp.InputRequestMap{}},
		"an image":           {Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		"annotations":        {Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		"a text's _meta":     {Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"k": "v"}}}},
	}
	for name, res := range unbounded {
		if n, ok := encodedAtMost(res); ok {
			t.Errorf("%s: bound %d, want none", name, n)
		}
	}
}
