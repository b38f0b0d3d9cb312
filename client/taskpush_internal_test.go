package client

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A status pushed for a task the client started, before its wait began,
// wakes that wait at once. The client keeps such pushes for the last
// maxEarlyPushes tasks it started: with one task more, the oldest one's
// push is forgotten. A push for a task the client did not start is not
// kept.
func TestTaskPushedBeforeTheWait(t *testing.T) {
	for _, started := range []int{maxEarlyPushes, maxEarlyPushes + 1} {
		t.Run(fmt.Sprint(started), func(t *testing.T) {
			c := &Client{}
			for i := range started {
				c.expectTask(fmt.Sprint("task-", i))
			}
			for i := range started {
				c.taskPushed(fmt.Appendf(nil, `{"taskId":"task-%d","status":"completed"}`, i))
			}
			c.taskPushed([]byte(`{"taskId":"other","status":"completed"}`))
			var woken []string
			for _, id := range []string{"task-0", "task-1", fmt.Sprint("task-", started-1), "other"} {
				ch := c.watchTask(id)
				select {
				case <-ch:
					woken = append(woken, id)
				default:
				}
				c.unwatchTask(id, ch)
			}
			want := []string{"task-0", "task-1", fmt.Sprint("task-", started-1)}
			if started > maxEarlyPushes {
				want = want[1:] // task-0's push forgotten
			}
			if diff := cmp.Diff(want, woken); diff != "" {
				t.Errorf("waits woken at once (-want +got):\n%s", diff)
			}
			if n := len(c.early); n != maxEarlyPushes-len(want) {
				t.Errorf("%d tasks kept after the waits began; want %d", n, maxEarlyPushes-len(want))
			}
		})
	}
}
