package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskLive serves, over Streamable HTTP, this module's server with the task
// tool build, which answers reply; its task ids are the server's own,
// unguessable, new in every session.
func taskLive(t *testing.T, reply string) string { return taskLiveGated(t, reply, false) }

// taskLiveGated is taskLive; gated, build's task stays working until the
// first poll of it was answered (a live server slower than the recorded
// one).
func taskLiveGated(t *testing.T, reply string, gated bool) string {
	t.Helper()
	gate := make(chan struct{})
	if !gated {
		close(gate)
	}
	s, err := server.New("builds", "v1", &server.Options{Tasks: &server.TaskOptions{PollInterval: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RegisterTaskTool(&mcp.Tool{Name: "build", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply}}}, nil
		}, &server.TaskToolOptions{Required: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		poll := r.Method == http.MethodPost && bytes.Contains(readAll(t, r), []byte(`"method":"tasks/get"`))
		h.ServeHTTP(w, r)
		if poll && gated {
			once.Do(func() { close(gate) })
		}
	}))
	t.Cleanup(func() { ts.Close(); h.Close(); s.Close() })
	return ts.URL
}

// recordTask records at path a session calling build once, as a task.
func recordVerifyTask(t *testing.T, path, url string) []byte {
	t.Helper()
	f := open(t, path, httpLive(t, url, nil), withMode(nil, cassette.ModeRecord))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "builds", Transport: f, Tasks: true,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: 5 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "build", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A task id is made up by the server, as a request state is: a recording
// names the n-th task the server created "task-<n>", in its handle, in the
// requests that name it and in their Mcp-Name headers, so that the same
// session recorded twice gives the same bytes.
func TestTaskIDsRenamed(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "a.jsonl")
	a := recordVerifyTask(t, path, taskLive(t, "built"))
	b := recordVerifyTask(t, tempPath(t, "b.jsonl"), taskLive(t, "built"))
	ids := regexp.MustCompile(`"taskId":"([^"]*)"`)
	for _, m := range ids.FindAllSubmatch(a, -1) {
		if string(m[1]) != "task-1" {
			t.Errorf("the recording holds task id %q, want task-1 only", m[1])
		}
	}
	if len(ids.FindAll(a, -1)) < 2 {
		t.Fatalf("the recording holds no task:\n%s", a)
	}
	names := regexp.MustCompile(`"Mcp-Name":\["([^"]*)"\]`)
	for _, m := range names.FindAllSubmatch(a, -1) {
		if string(m[1]) != "task-1" && string(m[1]) != "build" {
			t.Errorf("the recording holds Mcp-Name %q, want build or task-1", m[1])
		}
	}
	// The renamed recording replays: the client polls the task by its new
	// name, in the body and in Mcp-Name, and gets the recorded result.
	replayed := replayTask(t, path)
	if replayed != "built" {
		t.Errorf("replayed result %q, want %q", replayed, "built")
	}
	// The same session, recorded again against a new server with new ids,
	// names its task alike (the polls may differ in number).
	first := func(data []byte) string { return string(ids.Find(data)) }
	if first(a) != first(b) {
		t.Errorf("two recordings name their task %s and %s", first(a), first(b))
	}
}

// Verify drives a live server that hands out a new task id: the recorded
// polls are sent for the live task, and no drift is reported; a live task
// whose result differs is a result drift.
func TestVerifyTaskWithNewID(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "task.jsonl")
	recordVerifyTask(t, path, taskLive(t, "built"))
	if err := verify(t, path, httpLive(t, taskLive(t, "built"), nil), nil); err != nil {
		t.Fatalf("Verify against a new server of the same tool: %v", err)
	}
	err := verify(t, path, httpLive(t, taskLive(t, "broke"), nil), nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify against a server whose task answers otherwise = %v, want a *DriftError", err)
	}
	for _, d := range derr.Drifts {
		if d.Kind != cassette.DriftResult {
			t.Errorf("drift %+v, want only result drifts", d)
		}
	}
	mustContain(t, "drift error", err.Error(), "tasks/get", `"built"`, `"broke"`)
}

// readAll reads r's body and puts it back.
func readAll(t *testing.T, r *http.Request) []byte {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Error(err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// A live task slower than the recorded one is no drift: where the live
// server answers a recorded poll with its task still working and the
// recorded answer had moved on, Verify polls the live task again until it
// does, and compares the last of these polls in the recorded one's place.
// The live task here is working at its first poll whatever the machine;
// the recorded one completed at its last.
func TestVerifySlowerLiveTask(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "task.jsonl")
	recordVerifyTask(t, path, taskLive(t, "built"))
	if err := verify(t, path, httpLive(t, taskLiveGated(t, "built", true), nil), nil); err != nil {
		t.Fatalf("Verify against a slower server of the same tool: %v", err)
	}
	err := verify(t, path, httpLive(t, taskLiveGated(t, "broke", true), nil), nil)
	var derr *cassette.DriftError
	if !errors.As(err, &derr) {
		t.Fatalf("Verify against a slower server whose task answers otherwise = %v, want a *DriftError", err)
	}
	mustContain(t, "drift error", err.Error(), `"built"`, `"broke"`)
	live, err := derr.Live.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(live, []byte(`"working"`)) && !bytes.Contains(mustRead(t, path), []byte(`"working"`)) {
		t.Errorf("the live session holds a working poll the recording does not")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// replayTask replays the recording at path of one call of build, and
// returns the result's text.
func replayTask(t *testing.T, path string) string {
	t.Helper()
	f := open(t, path, nil, withMode(nil, cassette.ModeReplay))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "builds", Transport: f, Tasks: true,
		Limits: client.Limits{TaskPollMin: time.Millisecond, TaskPollMax: 5 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "build", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}
