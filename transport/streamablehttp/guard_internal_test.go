package streamablehttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

// counting is a server that counts requests and answers 202.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func post(st *connState, url, body string) error {
	resp, err := st.client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func TestReplayGuardRefusesASecondPOSTOfACall(t *testing.T) {
	leakcheck.Check(t)
	srv, n := counting(t)
	f, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`
	if err := post(st, srv.URL, call); err != nil {
		t.Fatal(err)
	}
	if err := post(st, srv.URL, call); !errors.Is(err, ErrReplay) {
		t.Errorf("second POST of id 7: error = %v, want ErrReplay", err)
	}
	// initialize executes nothing and may be re-sent (after a 401);
	// notifications carry no id and are not calls.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x"}}`,
	} {
		if err := post(st, srv.URL, body); err != nil {
			t.Errorf("POST %s: %v", body, err)
		}
	}
	if got := n.Load(); got != 6 {
		t.Errorf("server received %d requests, want 6", got)
	}
}

func TestRequestToAnotherOriginRefused(t *testing.T) {
	leakcheck.Check(t)
	home, _ := counting(t)
	other, n := counting(t)
	f, err := New(home.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	req, _ := http.NewRequest(http.MethodGet, other.URL, nil)
	if _, err := st.RoundTrip(req); !errors.Is(err, transport.ErrCrossOrigin) {
		t.Errorf("RoundTrip to %s: error = %v, want transport.ErrCrossOrigin", other.URL, err)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("other origin received %d requests, want 0", got)
	}
}
