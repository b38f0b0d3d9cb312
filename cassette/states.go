package cassette

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// renameStates renames the request states a server hands out in its
// input-required results (2026-07-28's requestState), and the task ids it
// hands out in its task handles (the tasks extension), as session ids are
// renamed: a request state is an opaque token the client only hands back,
// and a server may seal into it a serial, a time or a nonce, which would
// change the result's line and its continuation's in every re-recording.
// The n-th state the server handed out becomes "state-<n>", in the result
// and wherever it appears whole as a JSON string after it (the
// continuations that carry it back); the n-th task "task-<n>", in the
// handle, wherever it appears whole as a JSON string after it (the polls,
// updates and cancels that name it) and in the headers that name it whole
// (Mcp-Name). Replay hands out the new name, which the client sends back;
// Verify hands the live server the state or the task id it issued in its
// place.
func renameStates(c *Cassette) {
	states, tasks := stateNames{prefix: "state-"}, stateNames{prefix: "task-"}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if len(in.Message) == 0 {
			renameHeaders(in, &tasks)
			continue
		}
		if st := issuedState(in.Message); st != nil {
			states.add(st)
		}
		if id := issuedTask(in.Message); id != nil {
			tasks.add(id)
		}
		in.Message = tasks.rename(states.rename(in.Message))
		renameHeaders(in, &tasks)
	}
}

// renameHeaders renames the task ids in's headers name whole: the
// Mcp-Name of a tasks/get, tasks/update or tasks/cancel over Streamable
// HTTP.
func renameHeaders(in *Interaction, tasks *stateNames) {
	if in.HTTP == nil || len(tasks.from) == 0 {
		return
	}
	for k, vs := range in.HTTP.Headers {
		for j, v := range vs {
			if to, ok := tasks.nameOf([]byte(strconv.Quote(v))); ok {
				in.HTTP.Headers[k][j] = to
			}
		}
	}
}

// stateNames maps the states (or task ids) a session's server issued, as
// quoted JSON strings, to their new names (prefix and a number), in the
// order issued.
type stateNames struct {
	prefix   string
	from, to [][]byte
	repl     *strings.Replacer // from → to, in one pass; nil until needed
}

// add names st (a quoted JSON string) unless it has a name already.
func (n *stateNames) add(st []byte) {
	for _, f := range n.from {
		if bytes.Equal(f, st) {
			return
		}
	}
	n.learn(st, []byte(strconv.Quote(n.prefix+strconv.Itoa(len(n.from)+1))))
}

// learn names from (a quoted JSON string) to.
func (n *stateNames) learn(from, to []byte) {
	n.from = append(n.from, bytes.Clone(from))
	n.to = append(n.to, bytes.Clone(to))
	n.repl = nil
}

// nameOf returns the name of quoted, unquoted, if it has one.
func (n *stateNames) nameOf(quoted []byte) (string, bool) {
	for i, f := range n.from {
		if bytes.Equal(f, quoted) {
			name, err := strconv.Unquote(string(n.to[i]))
			return name, err == nil
		}
	}
	return "", false
}

// rename replaces every named state in msg with its name, in one pass: a
// name that is another state's spelling is not renamed again.
func (n *stateNames) rename(msg []byte) []byte {
	if len(n.from) == 0 {
		return msg
	}
	if n.repl == nil {
		pairs := make([]string, 0, 2*len(n.from))
		for i, f := range n.from {
			pairs = append(pairs, string(f), string(n.to[i]))
		}
		n.repl = strings.NewReplacer(pairs...)
	}
	return []byte(n.repl.Replace(string(msg)))
}

// issuedState returns the requestState of msg's result, as the quoted JSON
// string it is written as, or nil when msg is not a result carrying one.
func issuedState(msg json.RawMessage) []byte {
	if !bytes.Contains(msg, []byte(`"requestState"`)) {
		return nil
	}
	var m struct {
		Result *struct {
			RequestState json.RawMessage `json:"requestState"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil {
		return nil
	}
	st := bytes.TrimSpace(m.Result.RequestState)
	if len(st) < 2 || st[0] != '"' {
		return nil
	}
	return st
}

// issuedTask returns the taskId of msg's result when it is a task handle
// (resultType "task", the answer to a tools/call the server runs as a
// task), as the quoted JSON string it is written as, or nil.
func issuedTask(msg json.RawMessage) []byte {
	if !bytes.Contains(msg, []byte(`"taskId"`)) {
		return nil
	}
	var m struct {
		Result *struct {
			ResultType string          `json:"resultType"`
			TaskID     json.RawMessage `json:"taskId"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil || m.Result.ResultType != "task" {
		return nil
	}
	id := bytes.TrimSpace(m.Result.TaskID)
	if len(id) < 2 || id[0] != '"' {
		return nil
	}
	return id
}
