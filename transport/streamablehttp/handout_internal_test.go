package streamablehttp

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pieces returns one piece per Read, as a network hands out what arrived.
type pieces [][]byte

func (p *pieces) Read(b []byte) (int, error) {
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	if (*p)[0] = (*p)[0][n:]; len((*p)[0]) == 0 {
		*p = (*p)[1:]
	}
	return n, nil
}

// A response stream hands the go-sdk no more of each event than the go-sdk
// keeps of it: of an event without a message its id and retry; of the
// call's answer its data alone, and not the events without a message just
// before it in the same read (the go-sdk ends the stream at the answer,
// and resumes from no id read before it); after the answer nothing. A
// notification keeps its place before the answer.
func TestSSEBodyHandsTheGoSDKWhatItKeeps(t *testing.T) {
	const prime = "event: prime\nid: s_0\ndata: \n\n"
	answer := "event: message\nid: s_1\ndata: " + response(60) + "\n\n"
	note := "event: message\ndata: " + notification(100) + "\n\n"
	for _, tc := range []struct {
		name   string
		reads  []string
		call   bool
		handed string
	}{
		{"priming event and answer in one read", []string{prime + answer}, true,
			"data: " + response(60) + "\n\n"},
		{"priming event, then the answer", []string{prime, answer}, true,
			"id: s_0\n\n" + "data: " + response(60) + "\n\n"},
		{"a notification, a priming event and the answer", []string{note + prime + answer}, true,
			note + "data: " + response(60) + "\n\n"},
		{"the answer, then a notification", []string{answer + note}, true,
			"data: " + response(60) + "\n\n"},
		{"the standalone stream", []string{prime + "retry: 50\n\n" + note}, false,
			"id: s_0\n\nretry: 50\n\n" + note},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in pieces
			for _, r := range tc.reads {
				in = append(in, []byte(r))
			}
			b := newBodyBase(t, "")
			b.rc = io.NopCloser(&in)
			body := &sseBody{bodyBase: b, ctx: context.Background(), maxEvent: 1 << 20, maxTotal: 1 << 20}
			if tc.call {
				body.call = testCall
			}
			out, err := io.ReadAll(body)
			body.Close()
			if err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			if diff := cmp.Diff(tc.handed, string(out)); diff != "" {
				t.Errorf("handed to the go-sdk (-want +got):\n%s", diff)
			}
		})
	}
}
