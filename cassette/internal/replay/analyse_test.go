package replay

import (
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
)

// TestStreamCheck: each rule of an HTTP cassette's streams refuses the
// line that breaks it, with an error saying which rule, and a cassette
// that keeps them all is taken.
func TestStreamCheck(t *testing.T) {
	const call = "request 1 POST call 1 a\n"
	for _, tc := range []struct {
		name, transcript, want string
		edit                   func(*format.Cassette)
	}{
		{"kept", call + "response 1 sse\nevent 1 answer 1\nclose 1 eof\n", "", nil},
		{"streams out of order", "request 2 POST call 1 a\nresponse 2 json answer 1\nrequest 1 POST notify n\n", "streams are numbered in order", nil},
		{"no request", call + "response 1 json answer 1\nresponse 2 sse\n", "for stream 2, which has no request", nil},
		{"second response", call + "response 1 json answer 1\nresponse 1 empty\n", "second response for stream 1", nil},
		{"event without a stream", call + "response 1 json\nevent 1 answer 1\n", "which has no event-stream response", nil},
		{"line after the close", call + "response 1 sse\nclose 1 eof\nevent 1 answer 1\n", "which is closed", nil},
		{"eof without a stream", call + "response 1 json answer 1\nclose 1 eof\n", `close "eof" for stream 1, which has no event-stream response`, nil},
		{"error after a response", call + "response 1 json answer 1\nclose 1 error\n", `close "error" for stream 1, which has a response`, nil},
		{"unknown end", call + "response 1 sse\nclose 1 gone\n", `close with end "gone"`, nil},
		{"event-stream response with a body", call + "response 1 sse\n", "event-stream response with a body", func(c *format.Cassette) {
			c.Interactions[1].Text = "hello"
		}},
		{"response with event fields", call + "response 1 json answer 1\n", "response line with event fields", func(c *format.Cassette) {
			c.Interactions[1].HTTP.ID = "e1"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := shorthand(tc.transcript)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(c)
			}
			_, err = format.Analyse(c)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("analyse: %v, want it taken", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("analyse: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// newPlayer analyses c, as cassette's Open does, and plans its replay.
func newPlayer(c *format.Cassette, o *Config) (*Player, error) {
	infos, err := format.Analyse(c)
	if err != nil {
		return nil, err
	}
	return NewPlayer(c, infos, o)
}
