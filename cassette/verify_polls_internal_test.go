package cassette

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// foldPolls takes out of a live session exactly the polls Verify
// superseded: their requests and answers at the message level, their whole
// streams over HTTP; the last poll and every other line stay.
func TestFoldPolls(t *testing.T) {
	msg := func(s string) json.RawMessage { return json.RawMessage(s) }
	superseded := map[string]bool{"n:7": true, "s:verify-poll-3-1": true}
	lines := func(c *Cassette) []string {
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
		c := &Cassette{Interactions: []Interaction{
			{Kind: KindMessage, Message: msg(`{"id":6,"method":"tools/call"}`)},
			{Kind: KindMessage, Message: msg(`{"id":6,"result":{}}`)},
			{Kind: KindMessage, Message: msg(`{"id":7,"method":"tasks/get"}`)},
			{Kind: KindMessage, Message: msg(`{"method":"notifications/progress"}`)},
			{Kind: KindMessage, Message: msg(`{"id":7,"result":{"status":"working"}}`)},
			{Kind: KindMessage, Message: msg(`{"id":"verify-poll-3-1","method":"tasks/get"}`)},
			{Kind: KindMessage, Message: msg(`{"id":"verify-poll-3-1","result":{"status":"working"}}`)},
			{Kind: KindMessage, Message: msg(`{"id":"verify-poll-3-2","method":"tasks/get"}`)},
			{Kind: KindMessage, Message: msg(`{"id":"verify-poll-3-2","result":{"status":"completed"}}`)},
			{Kind: KindClose},
		}}
		foldPolls(c, superseded)
		want := []string{`{"id":6,"method":"tools/call"}`, `{"id":6,"result":{}}`, `{"method":"notifications/progress"}`,
			`{"id":"verify-poll-3-2","method":"tasks/get"}`, `{"id":"verify-poll-3-2","result":{"status":"completed"}}`, ``}
		if diff := cmp.Diff(want, lines(c)); diff != "" {
			t.Errorf("folded session mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("http", func(t *testing.T) {
		c := &Cassette{Interactions: []Interaction{
			{Kind: KindRequest, HTTP: &HTTP{Stream: 1}, Message: msg(`{"id":7,"method":"tasks/get"}`)},
			{Kind: KindRequest, HTTP: &HTTP{Stream: 2}, Message: msg(`{"id":"verify-poll-3-2","method":"tasks/get"}`)},
			{Kind: KindResponse, HTTP: &HTTP{Stream: 1}},
			{Kind: KindEvent, HTTP: &HTTP{Stream: 1}, Message: msg(`{"id":7,"result":{"status":"working"}}`)},
			{Kind: KindClose, HTTP: &HTTP{Stream: 1}},
			{Kind: KindResponse, HTTP: &HTTP{Stream: 2}},
			{Kind: KindEvent, HTTP: &HTTP{Stream: 2}, Message: msg(`{"id":"verify-poll-3-2","result":{"status":"completed"}}`)},
		}}
		foldPolls(c, superseded)
		want := []string{KindRequest + ` {"id":"verify-poll-3-2","method":"tasks/get"}`, KindResponse + " ",
			KindEvent + ` {"id":"verify-poll-3-2","result":{"status":"completed"}}`}
		if diff := cmp.Diff(want, lines(c)); diff != "" {
			t.Errorf("folded session mismatch (-want +got):\n%s", diff)
		}
	})
}
