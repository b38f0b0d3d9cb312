package transcript_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/transcript"
)

func msgs(lines ...string) []transcript.Message {
	var out []transcript.Message
	for i, l := range lines {
		from := transcript.FromClient
		if strings.HasPrefix(l, "s:") {
			from = transcript.FromServer
		}
		out = append(out, transcript.Message{Number: i + 1, Line: i + 2, From: from, Raw: []byte(l[2:])})
	}
	return out
}

// TestRead2026: a 2026-07-28 session says who is talking in "_meta"; its
// handshake and subscription are not calls; a continuation is.
func TestRead2026(t *testing.T) {
	s := transcript.Read(msgs(
		`c:{"id":1,"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"me","version":"v2"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`s:{"id":1,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"v9"}},"capabilities":{"tools":{}},"supportedVersions":["2026-07-28"]}}`,
		`c:{"id":2,"jsonrpc":"2.0","method":"subscriptions/listen","params":{}}`,
		`c:{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"name":"confirm"}}`,
		`s:{"id":3,"jsonrpc":"2.0","result":{"inputRequests":{"ok":{"method":"elicitation/create"}},"requestState":"r1","resultType":"input_required"}}`,
		`c:{"id":4,"jsonrpc":"2.0","method":"tools/call","params":{"inputResponses":{"ok":{}},"name":"confirm","requestState":"r1"}}`,
		`s:{"id":4,"jsonrpc":"2.0","result":{"content":[{"text":"done","type":"text"}]}}`,
	), nil)
	got := []string{s.Protocol, s.ServerName, s.ServerVersion, s.ClientName, s.ClientVersion, strings.Join(s.Capabilities, ",")}
	if diff := cmp.Diff([]string{"2026-07-28", "srv", "v9", "me", "v2", "tools"}, got); diff != "" {
		t.Errorf("handshake mismatch (-want +got):\n%s", diff)
	}
	var calls []string
	for _, c := range s.Calls {
		calls = append(calls, c.Describe()+" -> "+c.Summary())
	}
	want := []string{`tools/call confirm -> input required: ok (elicitation/create)`, `tools/call confirm (continuation, state "r1") -> "done"`}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
}

// TestCompareNamesItsSides: reasons and diffs name the sides as given.
func TestCompareNamesItsSides(t *testing.T) {
	a := transcript.Read(msgs(`c:{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`, `s:{"id":1,"jsonrpc":"2.0","result":{"n":1}}`), nil)
	b := transcript.Read(msgs(`c:{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`, `s:{"id":7,"jsonrpc":"2.0","result":{"n":2}}`,
		`c:{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{"name":"y"}}`), nil)
	ds := transcript.Compare(a, b, "recorded", "live")
	if len(ds) != 2 || ds[0].Reason != "answered differently" || !strings.HasPrefix(ds[0].Diff, "--- recorded\n+++ live\n") || ds[1].Reason != "not called in recorded" {
		t.Errorf("drifts %+v", ds)
	}
	var b2 strings.Builder
	transcript.Format(&b2, ds, "recorded", "live")
	if !strings.Contains(b2.String(), "result drift:\n  [minor] tools/call x: answered differently: values changed, same shape (recorded line 3, live line 3)\n    --- recorded\n") {
		t.Errorf("Format:\n%s", b2.String())
	}
}
