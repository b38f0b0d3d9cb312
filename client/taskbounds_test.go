package client_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/testkit"
)

// The server's poll hint is kept within Limits.TaskPollMin and
// TaskPollMax, each at its edge: a hint below the floor waits the floor,
// one at it waits it, one within the bounds is taken as given, one above
// the ceiling waits the ceiling, and no hint waits DefaultTaskPoll.
func TestTaskPollInterval(t *testing.T) {
	const floor, ceiling = 50 * time.Millisecond, 2 * time.Second
	for _, tc := range []struct {
		name   string
		hintMs int
		want   time.Duration
	}{
		{"below the floor", 49, floor},
		{"at the floor", 50, floor},
		{"within", 300, 300 * time.Millisecond},
		{"at the ceiling", 2000, ceiling},
		{"above the ceiling", 2001, ceiling},
		{"no hint", 0, client.DefaultTaskPoll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTaskPeer()
			c, _ := connectTasks(t, "in-process", p, true, client.Limits{TaskPollMin: floor, TaskPollMax: ceiling}, nil, nil)
			clk := client.SetFakeTaskClock(c)
			if _, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 3, "hint": tc.hintMs}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]time.Duration{tc.want, tc.want, tc.want}, clk.Sleeps()); diff != "" {
				t.Errorf("waits between polls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Limits.TaskTimeout at its edge: a task that completes at its third poll,
// 100ms apart, completes within a bound of 300ms; with 299ms the wait fails
// before the third poll with ErrTaskTimeout (ClassTimeout), and the task
// is cancelled.
func TestTaskTimeoutBound(t *testing.T) {
	for _, tc := range []struct {
		bound time.Duration
		want  counts
	}{
		{300 * time.Millisecond, counts{Execs: map[string]int{"job": 1}, Gets: 3}},
		{299 * time.Millisecond, counts{Execs: map[string]int{}, Gets: 2, Cancels: 1}},
	} {
		t.Run(tc.bound.String(), func(t *testing.T) {
			p := newTaskPeer()
			c, _ := connectTasks(t, "in-process", p, true, client.Limits{TaskPollMin: time.Millisecond, TaskTimeout: tc.bound}, nil, nil)
			client.SetFakeTaskClock(c)
			_, err := c.CallTool(testkit.Context(t), "job", map[string]any{"polls": 3, "hint": 100})
			if tc.want.Cancels == 0 && err != nil {
				t.Fatal(err)
			}
			if tc.want.Cancels > 0 {
				assertClass(t, err, client.ClassTimeout, client.ErrTaskTimeout)
			}
			if diff := cmp.Diff(tc.want, p.counts()); diff != "" {
				t.Errorf("server counts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Limits that cannot be met are refused at Connect, before anything
// starts: a floor above the ceiling.
func TestTaskPollLimitsChecked(t *testing.T) {
	p := newTaskPeer()
	_, err := client.Connect(testkit.Context(t), client.Definition{Name: "jobs", Transport: inprocessFactory(p),
		Limits: client.Limits{TaskPollMin: 2 * time.Second, TaskPollMax: time.Second}}, nil)
	assertClass(t, err, client.ClassPolicy, nil)
}
