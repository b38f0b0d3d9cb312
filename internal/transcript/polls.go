package transcript

import "fmt"

// Polling is not part of what must match (the tasks extension, SEP-2663):
// how often a client polled a task says how fast its machine was. Two
// sessions are compared with each run of polls of one task answered with
// the same state counted as one, as a cassette replays them.

// Polls returns calls without the polls (tasks/get) that repeat the state
// the previous poll of the same task was answered with (its answer but for
// its times: createdAt, lastUpdatedAt, pollIntervalMs, ttlMs), unless a tasks/update or tasks/cancel
// of that task came between.
func Polls(calls []*Call) []*Call {
	last := map[string]string{} // task id → the state its last poll was answered with
	out := make([]*Call, 0, len(calls))
	for _, c := range calls {
		id, _ := c.Params["taskId"].(string)
		switch c.Method {
		case "tasks/update", "tasks/cancel":
			delete(last, id)
		case "tasks/get":
			st := pollState(c)
			if prev, ok := last[id]; ok && prev == st {
				continue
			}
			last[id] = st
		}
		out = append(out, c)
	}
	return out
}

// pollState is a poll's answer without what changes from poll to poll of
// one state.
func pollState(c *Call) string {
	return Compact(taskNames{}.answer(c))
}

// taskTimes are the fields of a task that say when, not what.
var taskTimes = []string{"createdAt", "lastUpdatedAt", "pollIntervalMs", "ttlMs"}

// taskNames renames the task ids of a session's calls in order of first
// appearance ("task#1", …): a server makes them up, so that two sessions of
// the same tasks compare equal.
type taskNames map[string]string

func (n taskNames) name(id string) string {
	if id == "" {
		return ""
	}
	if _, ok := n[id]; !ok {
		n[id] = fmt.Sprintf("task#%d", len(n)+1)
	}
	return n[id]
}

// params returns c's params as compared: a task id renamed.
func (n taskNames) params(c *Call) string {
	id, ok := c.Params["taskId"].(string)
	if !ok {
		return Compact(c.Params)
	}
	cp := make(map[string]any, len(c.Params))
	for k, v := range c.Params {
		cp[k] = v
	}
	cp["taskId"] = n.name(id)
	return Compact(cp)
}

// answer returns c's answer as compared: a task's id renamed and its times
// left out.
func (n taskNames) answer(c *Call) map[string]any {
	a := c.Answer()
	r, ok := a["result"].(map[string]any)
	id, isTask := r["taskId"].(string)
	if !ok || !isTask {
		return a
	}
	cp := make(map[string]any, len(r))
	for k, v := range r {
		cp[k] = v
	}
	for _, k := range taskTimes {
		delete(cp, k)
	}
	cp["taskId"] = n.name(id)
	return map[string]any{"result": cp}
}
