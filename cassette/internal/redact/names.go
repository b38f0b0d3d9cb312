package redact

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
)

// RenameStates renames the request states a server hands out in its
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
func RenameStates(c *format.Cassette) {
	states, tasks := Names{prefix: "state-"}, Names{prefix: "task-"}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if len(in.Message) == 0 {
			renameHeaders(in, &tasks)
			continue
		}
		if st := IssuedState(in.Message); st != nil {
			states.Add(st)
		}
		if id := IssuedTask(in.Message); id != nil {
			tasks.Add(id)
		}
		in.Message = tasks.Rename(states.Rename(in.Message))
		renameHeaders(in, &tasks)
	}
}

// renameHeaders renames the task ids in's headers name whole: the
// Mcp-Name of a tasks/get, tasks/update or tasks/cancel over Streamable
// HTTP.
func renameHeaders(in *format.Interaction, tasks *Names) {
	if in.HTTP == nil || len(tasks.from) == 0 {
		return
	}
	for k, vs := range in.HTTP.Headers {
		for j, v := range vs {
			if to, ok := tasks.NameOf([]byte(strconv.Quote(v))); ok {
				in.HTTP.Headers[k][j] = to
			}
		}
	}
}

// Names maps the states (or task ids) a session's server issued, as
// quoted JSON strings, to their new names (prefix and a number), in the
// order issued.
type Names struct {
	prefix   string
	from, to [][]byte
	repl     *strings.Replacer // from → to, in one pass; nil until needed
}

// Add names st (a quoted JSON string) unless it has a name already.
func (n *Names) Add(st []byte) {
	for _, f := range n.from {
		if bytes.Equal(f, st) {
			return
		}
	}
	n.Learn(st, []byte(strconv.Quote(n.prefix+strconv.Itoa(len(n.from)+1))))
}

// Learn names from (a quoted JSON string) to.
func (n *Names) Learn(from, to []byte) {
	n.from = append(n.from, bytes.Clone(from))
	n.to = append(n.to, bytes.Clone(to))
	n.repl = nil
}

// NameOf returns the name of quoted, unquoted, if it has one.
func (n *Names) NameOf(quoted []byte) (string, bool) {
	for i, f := range n.from {
		if bytes.Equal(f, quoted) {
			name, err := strconv.Unquote(string(n.to[i]))
			return name, err == nil
		}
	}
	return "", false
}

// Rename replaces every named state in msg with its name, in one pass: a
// name that is another state's spelling is not renamed again.
func (n *Names) Rename(msg []byte) []byte {
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

// IssuedState returns the requestState of msg's result, as the quoted JSON
// string it is written as, or nil when msg is not a result carrying one.
func IssuedState(msg json.RawMessage) []byte {
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

// IssuedTask returns the taskId of msg's result when it is a task handle
// (resultType "task", the answer to a tools/call the server runs as a
// task), as the quoted JSON string it is written as, or nil.
func IssuedTask(msg json.RawMessage) []byte {
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

// Sessions renames session ids, as EventIDs renames event ids: a
// session id is an opaque token the client only hands back, and most
// servers make it random, which would change every request's line of
// every re-recording. The n-th id the server handed out becomes
// "session-<n>", in the Mcp-Session-Id headers of requests and responses
// and wherever else it appears whole (an id that is not plain visible
// ASCII is renamed in headers only). Replay hands out the new name, which
// the client sends back.
type Sessions struct {
	alias map[string]string
	order []string
}

// Add names id, a session id the server handed out, unless it has a name.
func (n *Sessions) Add(id string) {
	if n.alias == nil {
		n.alias = map[string]string{}
	}
	if _, ok := n.alias[id]; !ok && id != "" {
		n.alias[id] = "session-" + strconv.Itoa(len(n.alias)+1)
		n.order = append(n.order, id)
	}
}

// In renames the session ids in s.
func (n *Sessions) In(s string) string {
	for _, id := range n.order {
		if plainToken(id) && strings.Contains(s, id) {
			s = strings.ReplaceAll(s, id, n.alias[id])
		}
	}
	return s
}

// Bytes renames the session ids in a body.
func (n *Sessions) Bytes(b []byte) []byte {
	for _, id := range n.order {
		if plainToken(id) && bytes.Contains(b, []byte(id)) {
			b = bytes.ReplaceAll(b, []byte(id), []byte(n.alias[id]))
		}
	}
	return b
}

// Headers returns h with its Mcp-Session-Id renamed.
func (n *Sessions) Headers(h http.Header) http.Header {
	vs := h.Values("Mcp-Session-Id")
	if len(vs) == 0 || len(n.order) == 0 {
		return h
	}
	h = h.Clone()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v
		if a, ok := n.alias[v]; ok {
			out[i] = a
		}
	}
	h[http.CanonicalHeaderKey("Mcp-Session-Id")] = out
	return h
}

// plainToken reports whether id can be renamed inside JSON text and URLs
// as it is: at least 4 characters, none that JSON or a URL escapes.
func plainToken(id string) bool {
	if len(id) < 4 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
			return false
		}
	}
	return true
}

// EventIDs renames server-sent event ids. An event id is an opaque token
// the client only hands back (as Last-Event-ID), and servers make them
// random (the go-sdk's are "<random stream id>_<index>"), which would make
// every recording differ. The part before the last "_" is renamed "s<n>",
// n counting distinct prefixes in order of first appearance; the rest is
// kept. Renaming is one to one, and applied alike to event ids and
// Last-Event-ID headers, so resumption replays as recorded.
type EventIDs struct {
	ids      map[string]string
	prefixes map[string]string
}

// Alias returns the name of event id id, naming it if it has none.
func (a *EventIDs) Alias(id string) string {
	if id == "" {
		return ""
	}
	if a.ids == nil {
		a.ids, a.prefixes = map[string]string{}, map[string]string{}
	}
	if v, ok := a.ids[id]; ok {
		return v
	}
	prefix, suffix := id, ""
	if i := strings.LastIndexByte(id, '_'); i > 0 {
		prefix, suffix = id[:i], id[i:]
	}
	p, ok := a.prefixes[prefix]
	if !ok {
		p = "s" + strconv.Itoa(len(a.prefixes)+1)
		a.prefixes[prefix] = p
	}
	a.ids[id] = p + suffix
	return p + suffix
}

// RenameEventIDs numbers the event ids' renamed prefixes ("s<n>") again,
// in the order the lines are written, once the recorder has put them in
// their final order: the first prefix a cassette holds is s1, whatever
// order the recorder saw the streams in.
func RenameEventIDs(c *format.Cassette) {
	var again EventIDs
	for i := range c.Interactions {
		h := c.Interactions[i].HTTP
		if h == nil {
			continue
		}
		id, last := h.ID, h.Headers.Get("Last-Event-ID")
		if id == "" && last == "" {
			continue
		}
		cp := *h
		cp.ID = again.Alias(id)
		if last != "" {
			cp.Headers = h.Headers.Clone()
			cp.Headers.Set("Last-Event-ID", again.Alias(last))
		}
		c.Interactions[i].HTTP = &cp
	}
}
