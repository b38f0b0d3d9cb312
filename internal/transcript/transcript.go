// Package transcript reads what the JSON-RPC messages of one MCP session
// say, whatever transport carried them: the handshake (revision, server,
// client, capabilities), the catalog the server listed, every request and
// its answer, the notifications. It compares two sessions by those
// messages: session drift, catalog drift, result drift. The cassette
// package (Compare, Verify) and mcprig (inspect, diff, verify) read
// cassettes through it, so every command means the same on every
// cassette.
package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
)

// Sides of a session.
const (
	FromClient = "client"
	FromServer = "server"
)

// A Message is one JSON-RPC message of a session.
type Message struct {
	Number int    // its place among the session's messages, from 1
	Line   int    // the cassette line it is on
	From   string // FromClient or FromServer
	Raw    []byte // the message
}

// A Session is what a session's messages say.
type Session struct {
	ServerName, ServerVersion string
	ClientName, ClientVersion string
	// Protocol is the revision the handshake agreed (initialize's result);
	// in 2026-07-28, which has none, the revision the client's requests
	// name. Callers may set it from elsewhere (a cassette's header).
	Protocol     string
	Capabilities []string // the server's capability names, sorted
	Instructions string

	// Catalog holds, by kind ("tools", "resources", "resourceTemplates",
	// "prompts"), the items of the last complete listing, sorted by key. A
	// kind never listed is absent.
	Catalog map[string][]Item
	// Order holds, by kind, the keys of Catalog's items in the order the
	// server listed them.
	Order map[string][]string
	// Requests are every request of the session, in order, with their
	// answers; Calls are those that are not the handshake (IsHandshake) or
	// a listing.
	Requests []*Call
	Calls    []*Call
	// Notifications counts notifications by sender and method
	// ("server notifications/tools/list_changed").
	Notifications map[string]int
	Messages      int
}

// An Item is one listed tool, resource, template or prompt.
type Item struct {
	Key  string         // the name, or the URI (template) of a resource
	Tree map[string]any // the item, without "_meta"
	Line int            // where it was listed
}

// A Call is a request and its answer.
type Call struct {
	Number   int // the request's message number
	Line     int
	From     string // who sent the request
	Method   string
	Params   map[string]any // without "_meta"
	ID       string         // the request id, as a key
	Answered bool
	// AnswerNumber and AnswerLine place the answer; 0 if unanswered.
	AnswerNumber, AnswerLine int
	Result                   any    // the result without "_meta"; nil for none
	Error                    *Error // the error answer, if any
}

// An Error is a JSON-RPC error answer.
type Error struct {
	Code    int64
	Message string
	Data    any
}

// IsListing reports whether method lists a catalog kind.
func IsListing(method string) bool { _, ok := lists[method]; return ok }

// IsHandshake reports whether method sets a session up rather than asks
// for something: initialize, and 2026-07-28's server/discover and the
// subscriptions/listen a client keeps open for list changes.
func IsHandshake(method string) bool {
	return method == "initialize" || method == "server/discover" || method == "subscriptions/listen"
}

// 2026-07-28 carries the revision and the peers' identities in "_meta".
const (
	metaProtocol   = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
	metaClientInfo = "io.modelcontextprotocol/clientInfo"
)

// Read reads msgs, in order. filter, if not nil, is applied to each
// message before its params, result and listed items are read (not its
// handshake): Compare's callers leave out what they ignore there.
// Messages that are not JSON-RPC are skipped.
func Read(msgs []Message, filter func([]byte) []byte) *Session {
	s := &Session{Catalog: map[string][]Item{}, Order: map[string][]string{}, Notifications: map[string]int{}}
	type pending struct {
		c    *Call
		list string
	}
	open := map[string]pending{} // by sender of the request and id
	for _, m := range msgs {
		w, ok := decodeWire(m.Raw)
		if !ok {
			continue
		}
		s.Messages++
		s.readHandshake(m.From, &w)
		if filter != nil {
			if fw, ok := decodeWire(filter(m.Raw)); ok {
				w = fw
			}
		}
		switch {
		case w.Method != "" && w.ID == nil:
			s.Notifications[m.From+" "+w.Method]++
		case w.Method != "":
			params, _ := decode(w.Params).(map[string]any)
			delete(params, "_meta")
			c := &Call{Number: m.Number, Line: m.Line, From: m.From, Method: w.Method, Params: params, ID: idKey(w.ID)}
			s.Requests = append(s.Requests, c)
			p := pending{c: c}
			switch {
			case IsListing(w.Method):
				p.list = w.Method
			case !IsHandshake(w.Method):
				s.Calls = append(s.Calls, c)
			}
			open[m.From+c.ID] = p
		case w.ID != nil:
			other := FromClient
			if m.From == FromClient {
				other = FromServer
			}
			p, ok := open[other+idKey(w.ID)]
			if !ok {
				continue
			}
			delete(open, other+idKey(w.ID))
			c := p.c
			c.Answered, c.AnswerNumber, c.AnswerLine = true, m.Number, m.Line
			if w.Error != nil {
				c.Error = w.Error.toError()
				continue
			}
			res := decode(w.Result)
			if obj, ok := res.(map[string]any); ok {
				delete(obj, "_meta")
			}
			c.Result = res
			if p.list != "" {
				s.addListing(p.list, c.Params, res, m.Line)
			}
		}
	}
	for _, k := range Kinds {
		items := s.Catalog[k]
		sort.SliceStable(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	}
	return s
}

// wire is a JSON-RPC message as it is written.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *wireError) toError() *Error {
	return &Error{Code: e.Code, Message: e.Message, Data: decode(e.Data)}
}

func decodeWire(raw []byte) (wire, bool) {
	var w wire
	if json.Unmarshal(raw, &w) != nil {
		return w, false
	}
	if string(w.ID) == "null" {
		w.ID = nil
	}
	return w, w.Method != "" || w.ID != nil
}

// readHandshake takes the session's identities and revision from the
// handshake: initialize, or the "_meta" 2026-07-28 carries on every
// request and result.
func (s *Session) readHandshake(from string, w *wire) {
	switch {
	case w.Method == "initialize" && from == FromClient:
		var p struct {
			ClientInfo struct{ Name, Version string } `json:"clientInfo"`
		}
		if json.Unmarshal(w.Params, &p) == nil && p.ClientInfo.Name != "" {
			s.ClientName, s.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
		}
	case w.Method != "" && from == FromClient:
		var p struct {
			Meta struct {
				Protocol   string                         `json:"io.modelcontextprotocol/protocolVersion"`
				ClientInfo struct{ Name, Version string } `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
		}
		if json.Unmarshal(w.Params, &p) == nil {
			if s.Protocol == "" && p.Meta.Protocol != "" {
				s.Protocol = p.Meta.Protocol
			}
			if s.ClientName == "" && p.Meta.ClientInfo.Name != "" {
				s.ClientName, s.ClientVersion = p.Meta.ClientInfo.Name, p.Meta.ClientInfo.Version
			}
		}
	case w.Method == "" && w.Result != nil && from == FromServer:
		var r struct {
			ProtocolVersion   string                          `json:"protocolVersion"`
			ServerInfo        *struct{ Name, Version string } `json:"serverInfo"`
			Capabilities      map[string]json.RawMessage      `json:"capabilities"`
			Instructions      string                          `json:"instructions"`
			SupportedVersions []string                        `json:"supportedVersions"`
			Meta              map[string]json.RawMessage      `json:"_meta"`
		}
		if json.Unmarshal(w.Result, &r) != nil {
			return
		}
		if r.ServerInfo != nil && r.ProtocolVersion != "" { // initialize's result
			s.Protocol = r.ProtocolVersion
			s.ServerName, s.ServerVersion = r.ServerInfo.Name, r.ServerInfo.Version
		}
		if info, ok := r.Meta[metaServerInfo]; ok && s.ServerName == "" {
			var si struct{ Name, Version string }
			if json.Unmarshal(info, &si) == nil {
				s.ServerName, s.ServerVersion = si.Name, si.Version
			}
		}
		if r.Capabilities != nil && (r.ServerInfo != nil || r.SupportedVersions != nil) && s.Capabilities == nil {
			s.Capabilities = []string{}
			for k := range r.Capabilities {
				s.Capabilities = append(s.Capabilities, k)
			}
			sort.Strings(s.Capabilities)
			s.Instructions = r.Instructions
		}
	}
}

// addListing adds one page of a list result to the catalog. A first page
// (no cursor in the request) replaces what earlier listings of the kind
// found.
func (s *Session) addListing(method string, params map[string]any, res any, line int) {
	l := lists[method]
	if _, paged := params["cursor"]; !paged {
		s.Catalog[l.field] = []Item{}
		s.Order[l.field] = nil
	}
	obj, _ := res.(map[string]any)
	items, _ := obj[l.field].([]any)
	for _, it := range items {
		tree, ok := it.(map[string]any)
		if !ok {
			continue
		}
		key, _ := tree[l.key].(string)
		delete(tree, "_meta")
		s.Catalog[l.field] = slices.DeleteFunc(s.Catalog[l.field], func(c Item) bool { return c.Key == key })
		s.Catalog[l.field] = append(s.Catalog[l.field], Item{Key: key, Tree: tree, Line: line})
		s.Order[l.field] = append(slices.DeleteFunc(s.Order[l.field], func(k string) bool { return k == key }), key)
	}
}

// Tool returns the tool a tools/call calls; "" for other requests.
func (c *Call) Tool() string {
	if c.Method != "tools/call" {
		return ""
	}
	name, _ := c.Params["name"].(string)
	return name
}

// Answer is what a call's answer is compared by.
func (c *Call) Answer() map[string]any {
	switch {
	case !c.Answered:
		return map[string]any{"answered": false}
	case c.Error != nil:
		e := map[string]any{"code": json.Number(strconv.FormatInt(c.Error.Code, 10)), "message": c.Error.Message}
		if c.Error.Data != nil {
			e["data"] = c.Error.Data
		}
		return map[string]any{"error": e}
	}
	return map[string]any{"result": c.Result}
}

// decode decodes raw JSON into a tree, keeping numbers as written; nil for
// empty or invalid input.
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// idKey returns a raw id as a key: a number's text or a string's value,
// told apart.
func idKey(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s:" + s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if f, err := n.Float64(); err == nil {
			return "n:" + strconv.FormatInt(int64(f), 10)
		}
	}
	return "?" + string(raw)
}

// Compact encodes v as compact JSON with sorted keys.
func Compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "?"
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
