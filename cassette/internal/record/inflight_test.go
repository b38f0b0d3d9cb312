package record

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette/internal/format"
)

// slowAccept answers a POST with 202 once release is closed, and a DELETE
// with 204 at once; entered is closed when the POST reached it.
type slowAccept struct {
	entered, release chan struct{}
	once             sync.Once
}

func (s *slowAccept) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodDelete {
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	}
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// TestRecorderWaitsForAnswersInFlight: the client's answer to a server's
// request, POSTed without waiting for its 202, may still be in flight when
// the session ends. The session's end waits for it (at most noCallWait).
// So its 202 is recorded whether it came before the DELETE or just after.
// One that never comes still leaves a stream the cassette can hold (a
// close line, the session's end).
func TestRecorderWaitsForAnswersInFlight(t *testing.T) {
	origin, err := auth.ParseOrigin("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	const answer = `{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`
	post := func(rt http.RoundTripper) chan error {
		done := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(answer))
			resp, err := rt.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		return done
	}
	del := func(rt http.RoundTripper) {
		req, _ := http.NewRequest(http.MethodDelete, "http://127.0.0.1:1/mcp", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	t.Run("its 202 after the DELETE began", func(t *testing.T) {
		base := &slowAccept{entered: make(chan struct{}), release: make(chan struct{})}
		r := &HTTPRecorder{origin: origin, onDelete: func() {}}
		rt := r.Wrap(base)
		done := post(rt)
		<-base.entered
		go close(base.release) // before or after the DELETE begins: either way the 202 is recorded
		del(rt)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		entries, err := r.Close()
		if err != nil {
			t.Fatal(err)
		}
		var statuses []int
		for _, e := range entries {
			if e.in.Kind == format.KindResponse {
				statuses = append(statuses, e.in.HTTP.Status)
			}
		}
		if len(statuses) != 2 || statuses[0] != http.StatusAccepted {
			t.Errorf("recorded responses %v, want the answer's 202 first, then the DELETE's 204", statuses)
		}
	})

	t.Run("no 202 at all", func(t *testing.T) {
		base := &slowAccept{entered: make(chan struct{}), release: make(chan struct{})}
		defer close(base.release)
		r := &HTTPRecorder{origin: origin, onDelete: func() {}}
		rt := r.Wrap(base)
		post(rt)
		<-base.entered
		entries, err := r.Close() // after noCallWait
		if err != nil {
			t.Fatal(err)
		}
		c, err := BuildHTTP(entries, origin, &Config{})
		if err == nil {
			_, err = format.Analyse(c)
		}
		if err != nil && !strings.Contains(err.Error(), "incomplete") && err != ErrIncomplete {
			t.Errorf("a request whose response never came: %v; want it closed with the session", err)
		}
		closed := false
		for _, e := range entries {
			closed = closed || e.in.Kind == format.KindClose && e.in.HTTP != nil && e.in.Ending.End == format.EndSession
		}
		if !closed {
			t.Errorf("the request whose response never came has no close line: the cassette would not load")
		}
	})
}
