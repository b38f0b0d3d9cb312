package redisstore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/server"
)

// pushStream is a subscriptions/listen stream held at one replica, read
// as its messages come.
type pushStream struct {
	by   string       // the replica that holds it
	msgs chan pushMsg // closed when the stream ends
}

// pushMsg is a message of a listen stream.
type pushMsg struct {
	Method string `json:"method"`
	Params struct {
		TaskID        string            `json:"taskId"`
		Status        server.TaskStatus `json:"status"`
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

// listen opens a 2026-07-28 listen stream for the task ids at pin, as
// principal, through the proxy.
func (f *fleet) listen(pin, principal string, ids ...string) *pushStream {
	f.t.Helper()
	b, _ := json.Marshal(ids)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"taskIds":%s},%s}}`, f.n.Add(1), b, taskMeta)
	req, err := http.NewRequestWithContext(testkit.Context(f.t), http.MethodPost, f.proxy.URL, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen",
		"Authorization": "Bearer " + principal, "X-Replica": pin,
	} {
		req.Header.Set(k, v)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		f.t.Fatalf("subscriptions/listen at %s: status %d, Content-Type %q", pin, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &pushStream{by: resp.Header.Get("X-Served-By"), msgs: make(chan pushMsg, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m pushMsg
				if json.Unmarshal([]byte(d), &m) != nil {
					m.Method = "undecodable: " + d
				}
				s.msgs <- m
			}
		}
	}()
	f.t.Cleanup(func() { resp.Body.Close(); <-done })
	return s
}

// acked reads the stream's acknowledgement: the task ids it agreed to.
func (s *pushStream) acked(t testing.TB) []string {
	t.Helper()
	select {
	case m := <-s.msgs:
		if m.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first message at %s: %+v, want the acknowledgement", s.by, m)
		}
		return m.Params.Notifications.TaskIDs
	case <-testkit.Context(t).Done():
		t.Fatalf("no acknowledgement at %s before the test's deadline", s.by)
		return nil
	}
}

// rest reads the stream to its end: its notifications/tasks as "status",
// and whether it ended with the listen's result.
func (s *pushStream) rest(t testing.TB) (pushes []string, result bool) {
	t.Helper()
	for {
		select {
		case m, ok := <-s.msgs:
			switch {
			case !ok:
				return pushes, result
			case m.Method == "notifications/tasks":
				pushes = append(pushes, string(m.Params.Status))
			case m.Method == "" && m.Result != nil:
				result = true
			default:
				pushes = append(pushes, "unexpected "+m.Method)
			}
		case <-testkit.Context(t).Done():
			t.Fatalf("the listen stream at %s did not end before the test's deadline (read %v)", s.by, pushes)
		}
	}
}

// matrixPush starts a task at A and holds listen streams for it at B and
// C: each receives each status change the task goes through once, in
// order, whichever replica made it (A asks and completes, C answers); a
// listen of another principal at C is acknowledged for none of it.
func matrixPush(t *testing.T, m *matrix) {
	f := newFleet(t, nil)
	id := f.start("A", "alice", "stepped")
	atB, atC := f.listen("B", "alice", id), f.listen("C", "alice", id)
	bob := f.listen("C", "bob", id)
	for _, s := range []*pushStream{atB, atC} {
		got := s.acked(t)
		m.check(t, "push acknowledged", "start A, listen "+s.by, "none", cmp.Equal(got, []string{id}), "taskIds %v, want [%s]", got, id)
	}
	got := bob.acked(t)
	pushes, _ := bob.rest(t)
	m.check(t, "push to another principal", "start A (alice), listen C (bob)", "none", len(got) == 0 && len(pushes) == 0, "acknowledged %v, pushed %v; want none", got, pushes)
	f.replicas[0].step <- struct{}{}
	f.await("B", "alice", id, server.TaskInputRequired)
	r := f.must("C", "alice", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}}`, id))
	if r.Error != nil {
		t.Fatalf("tasks/update at C: %+v", r.Error)
	}
	f.replicas[0].step <- struct{}{}
	f.await("B", "alice", id, server.TaskCompleted)
	want := []string{"input_required", "working", "completed"}
	for _, s := range []*pushStream{atB, atC} {
		pushes, result := s.rest(t)
		m.check(t, "status pushed", "start A, update C, listen "+s.by, "none", cmp.Equal(pushes, want) && result,
			"pushes %v (ended with the result: %v), want %v", pushes, result, want)
	}
}
