package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/looprig/mcp/cassette"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A session is what inspect and diff read from a cassette: the handshake,
// the catalog and the calls, with JSON decoded into plain trees.
type session struct {
	file          string
	header        cassette.Header
	serverVersion string
	clientName    string
	capabilities  []string // the server's capability names, sorted

	catalog map[string][]catalogItem // by list kind: "tools", "resources", "resourceTemplates", "prompts"
	calls   []*call                  // requests in recorded order, initialize and lists excluded

	notifications map[string]int // by sender and method: "server notifications/message"
	messages      int
	stderr        string
	other         map[string]int // interactions of kinds other than message and stderr
}

// A catalogItem is one listed tool, resource, template or prompt.
type catalogItem struct {
	key  string // name, or uri for resources and templates
	tree map[string]any
}

// A call is one request and its answer.
type call struct {
	line     int
	from     string // who sent the request
	method   string
	params   map[string]any // without _meta
	result   any            // without _meta; nil if there was no result
	err      *jsonrpc.Error // the error answer, if any
	answered bool
}

// lists maps a list method to the field of its result that holds the items
// and the key of each item.
var lists = map[string]struct{ field, key string }{
	"tools/list":               {"tools", "name"},
	"resources/list":           {"resources", "uri"},
	"resources/templates/list": {"resourceTemplates", "uriTemplate"},
	"prompts/list":             {"prompts", "name"},
}

// catalogKinds are the catalog's kinds in the order they are printed.
var catalogKinds = []string{"tools", "resources", "resourceTemplates", "prompts"}

// readSession summarises c.
func readSession(c *cassette.Cassette) (*session, error) {
	s := &session{file: c.File, header: c.Header, catalog: map[string][]catalogItem{},
		notifications: map[string]int{}, other: map[string]int{}}
	type pending struct {
		c    *call
		list string // the list method, if it is one
	}
	open := map[string]pending{} // by sender of the request and id
	for i := range c.Interactions {
		in := &c.Interactions[i]
		switch in.Kind {
		case cassette.KindMessage:
		case cassette.KindClose:
			if in.HTTP == nil { // the session's end: the tail of stderr it recorded
				s.stderr += in.Ending.Stderr
				continue
			}
			s.other[in.Kind]++
			continue
		default:
			s.other[in.Kind]++
			continue
		}
		s.messages++
		msg, err := jsonrpc.DecodeMessage(in.Message)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", c.File, c.Line(i), err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			params, _ := decode(m.Params).(map[string]any)
			delete(params, "_meta")
			if !m.ID.IsValid() {
				s.notifications[in.From+" "+m.Method]++
				continue
			}
			cl := &call{line: c.Line(i), from: in.From, method: m.Method, params: params}
			p := pending{c: cl}
			if _, ok := lists[m.Method]; ok {
				p.list = m.Method
			} else if m.Method != "initialize" {
				s.calls = append(s.calls, cl)
			}
			open[in.From+idKey(m.ID)] = p
		case *jsonrpc.Response:
			other := cassette.FromClient
			if in.From == cassette.FromClient {
				other = cassette.FromServer
			}
			p, ok := open[other+idKey(m.ID)]
			if !ok {
				continue
			}
			delete(open, other+idKey(m.ID))
			p.c.answered, p.c.err = true, asRPCError(m.Error)
			res := decode(m.Result)
			if obj, ok := res.(map[string]any); ok {
				delete(obj, "_meta")
			}
			p.c.result = res
			switch {
			case p.c.method == "initialize" && m.Error == nil:
				s.readInitialize(p.c)
			case p.list != "" && m.Error == nil:
				s.addListing(p.list, p.c.params, res)
			}
		}
	}
	for _, k := range catalogKinds {
		items := s.catalog[k]
		sort.SliceStable(items, func(i, j int) bool { return items[i].key < items[j].key })
	}
	return s, nil
}

func (s *session) readInitialize(c *call) {
	res, _ := c.result.(map[string]any)
	if info, ok := res["serverInfo"].(map[string]any); ok {
		s.serverVersion, _ = info["version"].(string)
	}
	if caps, ok := res["capabilities"].(map[string]any); ok {
		for k := range caps {
			s.capabilities = append(s.capabilities, k)
		}
		sort.Strings(s.capabilities)
	}
	if info, ok := c.params["clientInfo"].(map[string]any); ok {
		name, _ := info["name"].(string)
		version, _ := info["version"].(string)
		s.clientName = name
		if version != "" {
			s.clientName += " " + version
		}
	}
}

// addListing adds one page of a list result to the catalog. A first page (no
// cursor in the request) replaces what earlier listings of the kind found.
func (s *session) addListing(method string, params map[string]any, res any) {
	l := lists[method]
	if _, paged := params["cursor"]; !paged {
		s.catalog[l.field] = []catalogItem{}
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
		s.catalog[l.field] = slices.DeleteFunc(s.catalog[l.field], func(c catalogItem) bool { return c.key == key })
		s.catalog[l.field] = append(s.catalog[l.field], catalogItem{key: key, tree: tree})
	}
}

// tool returns the name of the tool a tools/call calls, "" for other calls.
func (c *call) tool() string {
	if c.method != "tools/call" {
		return ""
	}
	name, _ := c.params["name"].(string)
	return name
}

// decode decodes raw JSON into a tree, keeping numbers as written; nil for
// empty or invalid input (Load has validated every message).
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

// compact encodes v as compact JSON with sorted keys.
func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf(" %T %v", id.Raw(), id.Raw()) }

func asRPCError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*jsonrpc.Error); ok {
		return e
	}
	return &jsonrpc.Error{Message: err.Error()}
}
