package verify

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/looprig/mcp/cassette/internal/format"
)

// foldPolls takes out of a live session exactly the polls Verify
// superseded: their requests and answers at the message level, their whole
// streams over HTTP; the last poll and every other line stay.
func TestFoldPolls(t *testing.T) {
	msg := func(s string) json.RawMessage { return json.RawMessage(s) }
	superseded := map[string]bool{"n:7": true, "s:verify-poll-3-1": true}
	lines := func(c *format.Cassette) []string {
		var out []string
		for _, in := range c.Interactions {
			s := string(in.Message)
			if in.HTTP != nil {
				s = in.Kind + " " + s
			}
			out = append(out, s)
		}
		return out
	}
	t.Run("messages", func(t *testing.T) {
		c := &format.Cassette{Interactions: []format.Interaction{
			{Kind: format.KindMessage, Message: msg(`{"id":6,"method":"tools/call"}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":6,"result":{}}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":7,"method":"tasks/get"}`)},
			{Kind: format.KindMessage, Message: msg(`{"method":"notifications/progress"}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":7,"result":{"status":"working"}}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":"verify-poll-3-1","method":"tasks/get"}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":"verify-poll-3-1","result":{"status":"working"}}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":"verify-poll-3-2","method":"tasks/get"}`)},
			{Kind: format.KindMessage, Message: msg(`{"id":"verify-poll-3-2","result":{"status":"completed"}}`)},
			{Kind: format.KindClose},
		}}
		foldPolls(c, superseded)
		want := []string{`{"id":6,"method":"tools/call"}`, `{"id":6,"result":{}}`, `{"method":"notifications/progress"}`,
			`{"id":"verify-poll-3-2","method":"tasks/get"}`, `{"id":"verify-poll-3-2","result":{"status":"completed"}}`, ``}
		if diff := cmp.Diff(want, lines(c)); diff != "" {
			t.Errorf("folded session mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("http", func(t *testing.T) {
		c := &format.Cassette{Interactions: []format.Interaction{
			{Kind: format.KindRequest, HTTP: &format.HTTP{Stream: 1}, Message: msg(`{"id":7,"method":"tasks/get"}`)},
			{Kind: format.KindRequest, HTTP: &format.HTTP{Stream: 2}, Message: msg(`{"id":"verify-poll-3-2","method":"tasks/get"}`)},
			{Kind: format.KindResponse, HTTP: &format.HTTP{Stream: 1}},
			{Kind: format.KindEvent, HTTP: &format.HTTP{Stream: 1}, Message: msg(`{"id":7,"result":{"status":"working"}}`)},
			{Kind: format.KindClose, HTTP: &format.HTTP{Stream: 1}},
			{Kind: format.KindResponse, HTTP: &format.HTTP{Stream: 2}},
			{Kind: format.KindEvent, HTTP: &format.HTTP{Stream: 2}, Message: msg(`{"id":"verify-poll-3-2","result":{"status":"completed"}}`)},
		}}
		foldPolls(c, superseded)
		want := []string{format.KindRequest + ` {"id":"verify-poll-3-2","method":"tasks/get"}`, format.KindResponse + " ",
			format.KindEvent + ` {"id":"verify-poll-3-2","result":{"status":"completed"}}`}
		if diff := cmp.Diff(want, lines(c)); diff != "" {
			t.Errorf("folded session mismatch (-want +got):\n%s", diff)
		}
	})
}
