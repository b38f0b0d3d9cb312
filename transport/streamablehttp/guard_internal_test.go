package streamablehttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// guarded is a connection to a counting server, with the policy of a
// default Factory.
func guarded(t *testing.T) (*connState, *httptest.Server, *atomic.Int64) {
	t.Helper()
	srv, n := counting(t)
	f, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := newConnState(f)
	t.Cleanup(st.shutdown)
	return st, srv, n
}

func TestReplayGuardRefusesASecondPOSTOfACall(t *testing.T) {
	leakcheck.Check(t)
	st, srv, n := guarded(t)

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`
	if err := post(st, srv.URL, call); err != nil {
		t.Fatal(err)
	}
	err := post(st, srv.URL, call)
	if !errors.Is(err, errReplay) {
		t.Errorf("second POST of id 7: error = %v, want errReplay", err)
	}
	// The folded ErrReplay keeps its text and is a policy refusal, of no
	// other class.
	if !errors.Is(err, transport.ErrPolicy) || errors.Is(err, transport.ErrAuth) || errors.Is(err, transport.ErrProtocol) ||
		!strings.Contains(err.Error(), "streamablehttp: call already sent: tools/call id 7") {
		t.Errorf("second POST of id 7: error = %v, want \"streamablehttp: call already sent\" matching ErrPolicy only", err)
	}
	if got := st.f.Classify(err); got != transport.ErrPolicy {
		t.Errorf("Classify(%v) = %v, want ErrPolicy", err, got)
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
	// The id is the one the server reads: 7.0 is 7 again, "7" another id.
	if err := post(st, srv.URL, `{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"x"}}`); !errors.Is(err, errReplay) {
		t.Errorf("POST of id 7.0 after 7: error = %v, want errReplay", err)
	}
	if err := post(st, srv.URL, `{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"x"}}`); err != nil {
		t.Errorf("POST of id \"7\" after 7: %v", err)
	}
}

// The guard remembers the last replayWindow call ids: an id is refused
// while fewer than replayWindow calls came after it, and sent once the
// window has forgotten it.
func TestReplayGuardWindowEdge(t *testing.T) {
	leakcheck.Check(t)
	st, srv, _ := guarded(t)
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x"}}`, id)
	}
	for id := 1; id <= replayWindow; id++ { // 1 is the oldest the window holds
		if err := post(st, srv.URL, call(id)); err != nil {
			t.Fatalf("POST of id %d: %v", id, err)
		}
	}
	if err := post(st, srv.URL, call(1)); !errors.Is(err, errReplay) {
		t.Fatalf("id 1 with %d calls since: error = %v, want errReplay", replayWindow-1, err)
	}
	if err := post(st, srv.URL, call(replayWindow+1)); err != nil { // forgets 1
		t.Fatal(err)
	}
	if err := post(st, srv.URL, call(1)); err != nil {
		t.Errorf("id 1 after the window forgot it: %v", err)
	}
	if err := post(st, srv.URL, call(3)); !errors.Is(err, errReplay) { // 2 went as 1 came back
		t.Errorf("id 3, still in the window: error = %v, want errReplay", err)
	}
}

// String ids share the window with integer ids: a string id is forgotten
// after replayWindow calls of either kind, and an integer id leaving the
// window does not take a string id with it.
func TestReplayGuardWindowMixesIDKinds(t *testing.T) {
	var r recentIDs
	add := func(v any) bool {
		if n, ok := v.(int64); ok {
			v = float64(n) // how MakeID takes a number
		}
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return r.add(id)
	}
	if !add("a") {
		t.Fatal(`"a" refused, the first id`)
	}
	for n := int64(1); n < replayWindow; n++ {
		if !add(n) {
			t.Fatalf("id %d refused", n)
		}
	}
	if add("a") {
		t.Fatalf(`"a" with %d calls since: sent, want refused`, replayWindow-1)
	}
	if !add("b") { // forgets "a"
		t.Fatal(`"b" refused`)
	}
	if !add("a") { // forgets 1
		t.Fatal(`"a" after the window forgot it: refused`)
	}
	if !add(int64(1)) { // forgets 2
		t.Fatal("1 after the window forgot it: refused")
	}
	if add("b") || add(int64(3)) {
		t.Error(`"b" or 3, still in the window: sent, want refused`)
	}
}

// The window of integer ids holds no pointers: the garbage collector does
// not scan it.
func TestReplayGuardHoldsNoPointers(t *testing.T) {
	var r recentIDs
	for n := int64(300); n < 300+2*replayWindow; n++ {
		id, err := jsonrpc.MakeID(float64(n))
		if err != nil {
			t.Fatal(err)
		}
		r.add(id)
	}
	for name, v := range map[string]any{"ring": r.ring, "ints": r.ints} {
		if typ := reflect.TypeOf(v); hasPointers(typ.Elem()) || typ.Kind() == reflect.Map && hasPointers(typ.Key()) {
			t.Errorf("%s (%v) holds pointers", name, typ)
		}
	}
	if r.strs != nil || r.names != nil || len(r.ints) != replayWindow {
		t.Errorf("after integer ids only: strs %v, names %d long, %d ints; want nil, 0, %d", r.strs, len(r.names), len(r.ints), replayWindow)
	}
}

// hasPointers reports whether a value of type t holds a pointer.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

func TestRequestToAnotherOriginRefused(t *testing.T) {
	leakcheck.Check(t)
	st, _, _ := guarded(t)
	other, n := counting(t)
	req, _ := http.NewRequest(http.MethodGet, other.URL, nil)
	if _, err := st.RoundTrip(req); !errors.Is(err, &transport.PolicyError{Rule: transport.RuleCrossOrigin}) {
		t.Errorf("RoundTrip to %s: error = %v, want &transport.PolicyError{Rule: transport.RuleCrossOrigin}", other.URL, err)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("other origin received %d requests, want 0", got)
	}
}
