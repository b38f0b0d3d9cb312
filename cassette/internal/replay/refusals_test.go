package replay

import (
	"fmt"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
)

// TestReplayPassesOverARecoveredRefusal: a request refused with 401 or
// 403 and sent again is passed over in replay: the live request, sent
// once, matches the one sent again, and the refused one is neither served
// to it nor reported unused, its refusal never delivered. A refusal
// nothing was sent again after, and a 503, are replayed as recorded.
func TestReplayPassesOverARecoveredRefusal(t *testing.T) {
	const head = `{"format":"mcprig-cassette","version":2,"transport":"streamablehttp","protocol":"2026-07-28","server":"docs"}` + "\n"
	const req = `{"kind":"request","stream":%d,"method":"POST","url":"/mcp","headers":{"Mcp-Method":["tools/list"],"Mcp-Protocol-format.Version":["2026-07-28"]},"message":{"id":1,"jsonrpc":"2.0","method":"tools/list","params":{}}}` + "\n"
	const answer = `{"kind":"response","stream":2,"status":200,"headers":{"Content-Type":["application/json"]},"message":{"id":1,"jsonrpc":"2.0","result":{"tools":[]}}}` + "\n"
	const end = `{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n"
	refusal := func(status int) string {
		return fmt.Sprintf(`{"kind":"response","stream":1,"status":%d,"headers":{"Www-Authenticate":["Bearer"]},"text":"no"}`+"\n", status)
	}
	for _, tc := range []struct {
		name    string
		data    string
		matched int  // the line index the live request matches
		passed  bool // the refused request is passed over
	}{
		{"401, sent again", head + fmt.Sprintf(req, 1) + refusal(401) + fmt.Sprintf(req, 2) + answer + end, 2, true},
		{"403, sent again", head + fmt.Sprintf(req, 1) + refusal(403) + fmt.Sprintf(req, 2) + answer + end, 2, true},
		{"401, not sent again", head + fmt.Sprintf(req, 1) + refusal(401) + end, 0, false},
		{"503, sent again", head + fmt.Sprintf(req, 1) + refusal(503) + fmt.Sprintf(req, 2) + answer + end, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := format.Parse("refused.jsonl", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			p, err := newPlayer(c, &Config{Errors: testErrors})
			if err != nil {
				t.Fatal(err)
			}
			s := newScheduler(p.pl)
			i, ok := s.match(p.index[p.recordedKey(0, format.MsgCall)])
			if !ok || i != tc.matched {
				t.Fatalf("the live request matches line %d (%v), want %d", i, ok, tc.matched)
			}
			if s.ready(1) != tc.passed || s.failed[1] != tc.passed {
				t.Errorf("the refusal: ready %v, failed %v; want both %v (passed over: never delivered, nothing waits)", s.ready(1), s.failed[1], tc.passed)
			}
			s.serve(i)
			if got := len(s.Unused()); got != 0 && tc.passed {
				t.Errorf("%d lines unused, want none: the refused request is passed over", got)
			}
		})
	}
}
