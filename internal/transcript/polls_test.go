package transcript_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/transcript"
)

// taskSession is a session of one task whose client polled it, in turn,
// with the statuses given ("update" for a tasks/update between polls).
func taskSession(statuses ...string) *transcript.Session {
	lines := []string{
		`c:{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"build"}}`,
		`s:{"id":1,"jsonrpc":"2.0","result":{"resultType":"task","status":"working","taskId":"t1"}}`,
	}
	for i, st := range statuses {
		id := i + 2
		switch st {
		case "update":
			lines = append(lines, fmt.Sprintf(`c:{"id":%d,"jsonrpc":"2.0","method":"tasks/update","params":{"inputResponses":{"go":{}},"taskId":"t1"}}`, id),
				fmt.Sprintf(`s:{"id":%d,"jsonrpc":"2.0","result":{"resultType":"complete"}}`, id))
		case "completed":
			lines = append(lines, fmt.Sprintf(`c:{"id":%d,"jsonrpc":"2.0","method":"tasks/get","params":{"taskId":"t1"}}`, id),
				fmt.Sprintf(`s:{"id":%d,"jsonrpc":"2.0","result":{"lastUpdatedAt":"%d","result":{"content":[{"text":"built","type":"text"}]},"status":"completed","taskId":"t1"}}`, id, id))
		default:
			lines = append(lines, fmt.Sprintf(`c:{"id":%d,"jsonrpc":"2.0","method":"tasks/get","params":{"taskId":"t1"}}`, id),
				fmt.Sprintf(`s:{"id":%d,"jsonrpc":"2.0","result":{"inputRequests":{"go":{"method":"elicitation/create"}},"lastUpdatedAt":"%d","pollIntervalMs":%d,"status":%q,"taskId":"t1"}}`, id, id, id, st))
		}
	}
	return transcript.Read(msgs(lines...), nil)
}

// Tasks read as tasks: a task handle and each poll say the task, its
// status and, once it ended, its result; the polls of one state count as
// one (but across a tasks/update), and tasks compare by their order, not
// by their ids and times: two sessions of the same task polled a different
// number of times, by servers that named it differently, do not differ;
// ones whose states differ do.
func TestTaskPolls(t *testing.T) {
	s := taskSession("working", "working", "input_required", "input_required", "update", "input_required", "completed")
	var got []string
	for _, c := range transcript.Polls(s.Calls) {
		got = append(got, c.Describe()+" -> "+c.Summary())
	}
	want := []string{
		"tools/call build -> task t1: working",
		"tasks/get t1 -> task t1: working",
		"tasks/get t1 -> task t1: input_required, asks go",
		"tasks/update t1 answering go -> ok",
		"tasks/get t1 -> task t1: input_required, asks go",
		"tasks/get t1 -> task t1: completed, \"built\"",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	other := taskSession("working", "working", "working", "completed")
	for _, c := range other.Calls {
		if c.Params["taskId"] != nil {
			c.Params["taskId"] = "t-other"
		}
		if r, ok := c.Result.(map[string]any); ok && r["taskId"] != nil {
			r["taskId"] = "t-other"
		}
	}
	if ds := transcript.Compare(taskSession("working", "completed"), other, "a", "b"); len(ds) != 0 {
		t.Errorf("sessions differing in their number of polls drift: %+v", ds)
	}
	ds := transcript.Compare(taskSession("working", "completed"), taskSession("working", "input_required", "completed"), "a", "b")
	if len(ds) == 0 || !strings.Contains(ds[0].Reason, "answered differently") {
		t.Errorf("sessions whose states differ: drifts %+v, want the second poll answered differently", ds)
	}
}
