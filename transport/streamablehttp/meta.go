package streamablehttp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/looprig/mcp/internal/wire"
	segjson "github.com/segmentio/encoding/json"
)

// The per-request _meta of protocol 2026-07-28 (SEP-2575): every request
// names the revision, the client and its capabilities, and a server
// refuses a request without them (400, invalid params).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// requestMeta keeps the per-request _meta of a 2026-07-28 connection. It
// gives it to a request sent without it. It gives what the session's
// previous requests carried; server/discover, always first, carries all of
// it. Failing that, it gives the revision the request's
// Mcp-Protocol-Version header names, and empty capabilities. Keys the
// request has are kept.
//
// It also answers for the go-sdk v1.8.0's ClientSession.Ping and its
// keep-alive pings. These send a ping on 2026-07-28 without that _meta. A
// server refuses it (400, invalid params). The revision has no ping anyway:
// SEP-2575 removed it, and a server answers one that carries the _meta
// with -32601, method not found. So a ping of that revision is sent as the
// revision's own probe instead, server/discover, with the ping's id. Its
// answer is an object, which the go-sdk reads as ping's empty result. It
// says what a ping says: the server is there and answers. The session's
// Ping then works on every revision.
type requestMeta struct {
	mu   sync.Mutex                 // guards last
	last map[string]json.RawMessage // the triple of the last request that had one
}

// fill returns req, or a copy of it whose body carries the _meta it
// lacked. body is req's body, and h its header as readHeader reads it (nil
// if it does not read one). It acts on calls of 2026-07-28 only; the body
// of anything else is left as it is.
func (m *requestMeta) fill(req *http.Request, body []byte, h *wire.Header) (*http.Request, error) {
	if !statelessRevision(req) || m.keepComplete(h) {
		return req, nil
	}
	return m.fillRead(req, body)
}

// fillRead is fill reading the whole body, for every case keepComplete
// leaves to it.
func (m *requestMeta) fillRead(req *http.Request, body []byte) (*http.Request, error) {
	var msg map[string]json.RawMessage
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &msg) != nil || !isCall(msg) {
		return req, nil
	}
	params := map[string]json.RawMessage{}
	if p := msg["params"]; len(p) > 0 && string(p) != "null" {
		if json.Unmarshal(p, &params) != nil {
			return req, nil // not an object: the server says what is wrong
		}
	}
	meta := map[string]json.RawMessage{}
	if raw := params["_meta"]; len(raw) > 0 && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil {
			return req, nil
		}
	}
	ping := string(msg["method"]) == `"ping"`
	if _, ok := meta[metaProtocolVersion]; ok && !ping {
		m.keep(meta)
		return req, nil
	}
	for k, v := range m.triple(req) {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	if ping {
		msg["method"], params = json.RawMessage(`"server/discover"`), map[string]json.RawMessage{}
	}
	var err error
	if params["_meta"], err = marshal(meta); err != nil {
		return nil, err
	}
	if msg["params"], err = marshal(params); err != nil {
		return nil, err
	}
	data, err := marshal(msg)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	if ping {
		out.Header.Set("Mcp-Method", "server/discover")
	}
	out.Body = io.NopCloser(bytes.NewReader(data))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	out.ContentLength = int64(len(data))
	return out, nil
}

// marshal encodes v without escaping HTML, so that the values it holds
// keep their bytes.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// isCall reports whether msg is a JSON-RPC request with an id.
func isCall(msg map[string]json.RawMessage) bool {
	id, method := msg["id"], msg["method"]
	return len(method) > 0 && len(id) > 0 && string(id) != "null"
}

// keep remembers the triple of meta, a request's _meta that has one.
func (m *requestMeta) keep(meta map[string]json.RawMessage) {
	t := map[string]json.RawMessage{}
	for _, k := range []string{metaProtocolVersion, metaClientInfo, metaClientCapabilities} {
		if v, ok := meta[k]; ok {
			t[k] = v
		}
	}
	m.mu.Lock()
	m.last = t
	m.mu.Unlock()
}

// triple returns the _meta to give a request that has none: the last one
// kept, or what req's header says.
func (m *requestMeta) triple(req *http.Request) map[string]json.RawMessage {
	m.mu.Lock()
	last := m.last
	m.mu.Unlock()
	if last != nil {
		return last
	}
	v, _ := json.Marshal(req.Header.Get("Mcp-Protocol-Version"))
	return map[string]json.RawMessage{metaProtocolVersion: v, metaClientCapabilities: json.RawMessage("{}")}
}

// keepComplete reports whether the message of header h is a call, not a
// ping, whose _meta names its revision. That is the common case, which
// fill leaves as it is but for keeping its triple. It reads the params h
// holds without copying them; nothing is copied unless the triple changed.
// It reads each level as a raw value. So of keys given twice the last one
// counts, and keys match exactly, as in fill's maps. A body it cannot read
// so is left to fill's reading: not one JSON-RPC message alone, or params
// or _meta not objects.
func (m *requestMeta) keepComplete(h *wire.Header) bool {
	const flags = segjson.DontMatchCaseInsensitiveStructFields | segjson.DontCopyRawMessage
	if h == nil || h.Trailing || !h.IsCall() || h.Method == "" || h.Method == "ping" || len(h.Params) == 0 || h.Params[0] != '{' {
		return false
	}
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if _, err := segjson.Parse(h.Params, &p, flags); err != nil || len(p.Meta) == 0 || p.Meta[0] != '{' {
		return false
	}
	var meta struct {
		Version      json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
		Info         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
		Capabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	if _, err := segjson.Parse(p.Meta, &meta, flags); err != nil || meta.Version == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if same(m.last, metaProtocolVersion, meta.Version) && same(m.last, metaClientInfo, meta.Info) &&
		same(m.last, metaClientCapabilities, meta.Capabilities) {
		return true
	}
	t := map[string]json.RawMessage{metaProtocolVersion: bytes.Clone(meta.Version)}
	if meta.Info != nil {
		t[metaClientInfo] = bytes.Clone(meta.Info)
	}
	if meta.Capabilities != nil {
		t[metaClientCapabilities] = bytes.Clone(meta.Capabilities)
	}
	m.last = t
	return true
}

// same reports whether kept holds v under key, or neither has it.
func same(kept map[string]json.RawMessage, key string, v json.RawMessage) bool {
	old, ok := kept[key]
	return ok == (v != nil) && bytes.Equal(old, v)
}
