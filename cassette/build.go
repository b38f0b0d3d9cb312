package cassette

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/looprig/mcp/internal/canonjson"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
)

// buildMessages turns a message-level recording into a redacted cassette:
// the messages in the order the client saw them (less the client messages
// whose write failed), and how the session ended: where the server ended
// it, or, at the end, the client's close, naming the calls it left
// unanswered.
func buildMessages(kind transport.Kind, entries []recorded, o *Options, stderr []byte) (*Cassette, error) {
	red := newRedactor(o)
	var hs headerScan
	c := &Cassette{Header: Header{Format: FormatName, Version: Version, Transport: kind.String()}}
	c.Interactions = make([]Interaction, 0, len(entries)+1)
	pending := map[string][]byte{} // client calls not yet answered, by id key
	var order []string
	serverEnded := false
	for _, e := range entries {
		if e.end != nil {
			c.Interactions = append(c.Interactions, Interaction{Kind: KindClose, Ending: serverEnding(e, red)})
			serverEnded = true
			continue
		}
		if e.failed {
			continue
		}
		canon, err := canonicalMessage(e.msg)
		if err != nil {
			return nil, fmt.Errorf("encoding a message: %w", err)
		}
		info, err := scanMessage(canon)
		if err != nil {
			return nil, fmt.Errorf("encoding a message: %w", err)
		}
		hs.scan(e.from, &info)
		switch {
		case e.from == FromClient && info.kind == kindCall:
			if _, ok := pending[info.id]; !ok {
				order = append(order, info.id)
			}
			pending[info.id] = info.rawID
		case e.from == FromServer && info.kind == kindResponse:
			delete(pending, info.id)
		}
		if canon, err = red.message(canon); err != nil {
			return nil, fmt.Errorf("redacting a message: %w", err)
		}
		c.Interactions = append(c.Interactions, Interaction{Kind: KindMessage, From: e.from, Message: canon})
	}
	if !serverEnded {
		end := &Ending{End: EndClient}
		for _, id := range order {
			if raw, ok := pending[id]; ok {
				end.Pending = append(end.Pending, raw)
			}
		}
		if len(stderr) > 0 {
			end.Stderr = red.text(string(stderr))
		}
		c.Interactions = append(c.Interactions, Interaction{Kind: KindClose, Ending: end})
	}
	c.Header.Protocol, c.Header.Server = hs.protocol, hs.server
	if c.Header.Protocol == "" || c.Header.Server == "" {
		return nil, ErrIncomplete
	}
	return c, nil
}

// serverEnding records how the server ended a session: a child's exit
// status and the tail of its standard error, or the error that ended
// reading (its text only when no exit status explains it: a process id in
// it would make every recording differ).
func serverEnding(e recorded, red *redactor) *Ending {
	end := &Ending{End: EndError, Class: e.class}
	if errors.Is(e.end, io.EOF) {
		end.End = EndEOF
	}
	d := e.diag
	if d != nil {
		end.Stderr = red.text(string(d.Stderr))
		if d.Exited {
			end.Exit = &Exit{Code: d.ExitCode, Signal: d.Signal}
		}
		if d.Err != nil && end.Class == "" {
			end.Class = classOf(d.Err, nil)
		}
	}
	if end.End == EndError && (d == nil || !d.Exited) {
		end.Error = red.text(e.end.Error())
	}
	return end
}

// buildHTTP turns a captured HTTP session into a redacted cassette.
func buildHTTP(entries []hEntry, origin auth.Origin, o *Options) (*Cassette, error) {
	red := newRedactor(o)
	secret := secretHeaderSet(o)
	var hs headerScan
	ids := eventIDs{}
	c := &Cassette{Header: Header{Format: FormatName, Version: Version, Transport: transport.KindStreamableHTTP.String()}}
	calls := map[int]string{}  // stream → the id of the call its request carries
	answered := map[int]bool{} // streams whose call was answered on them
	for _, i := range lineOrder(entries) {
		e := entries[i]
		in := e.in
		if in.HTTP == nil {
			c.Interactions = append(c.Interactions, in) // the session's end
			continue
		}
		h := *in.HTTP
		in.HTTP = &h
		if in.Ending != nil {
			end := *in.Ending
			in.Ending = &end
			if answered[h.Stream] && end.End != EndError {
				// Once a POST stream has carried the answer to its call, the
				// client reads nothing more from it: how it ended after that
				// (the server's end, the client's drain, the session's end) is
				// timing, not behaviour.
				end.End = EndEOF
			}
			if e.err != nil {
				end.Error = red.text(strings.ReplaceAll(e.err.Error(), net.JoinHostPort(origin.Host, strconv.Itoa(origin.Port)), "ORIGIN"))
			}
		}
		h.URL = red.text(h.URL)
		h.Event, h.ID, h.Retry = red.text(h.Event), red.text(ids.alias(h.ID)), red.text(h.Retry)
		if v := h.Headers.Get("Last-Event-ID"); v != "" {
			h.Headers = h.Headers.Clone()
			h.Headers.Set("Last-Event-ID", ids.alias(v))
		}
		h.Headers = redactHeaders(red, secret, h.Headers)
		if len(e.raw) > 0 {
			if canon, info, ok := asMessage(e.raw); ok {
				hs.scan(side(&in), &info)
				switch {
				case in.Kind == KindRequest && info.kind == kindCall:
					calls[h.Stream] = info.id
				case in.Kind == KindEvent && info.kind == kindResponse && calls[h.Stream] == info.id:
					answered[h.Stream] = true
				}
				var err error
				if in.Message, err = red.message(canon); err != nil {
					return nil, fmt.Errorf("redacting a message: %w", err)
				}
			} else {
				in.Text = red.text(string(e.raw))
			}
		}
		c.Interactions = append(c.Interactions, in)
	}
	c.Header.Protocol, c.Header.Server = hs.protocol, hs.server
	if c.Header.Protocol == "" || c.Header.Server == "" {
		return nil, ErrIncomplete
	}
	if err := applyHooks(c, o.Hooks, true, afterCapture, beforeSave); err != nil {
		return nil, err
	}
	return c, nil
}

// asMessage reports whether raw is a JSON-RPC message, and returns it
// canonical.
func asMessage(raw []byte) ([]byte, msgInfo, bool) {
	canon, err := canonjson.Canonical(raw)
	if err != nil {
		return nil, msgInfo{}, false
	}
	info, err := scanMessage(canon)
	return canon, info, err == nil
}

// lineOrder returns the order in which entries are written: as captured,
// except that a stream's close line follows the stream's last line, and a
// response without a body (202 Accepted, 204 No Content) follows its
// request. When a stream ends, and when an empty answer arrives beside the
// events of another stream, is a matter of timing (the go-sdk drains a
// finished stream while the session goes on); where their lines go must not
// be, or re-recording would not give the same bytes. Neither carries
// anything a later line could depend on.
func lineOrder(entries []hEntry) []int {
	attached := func(e *hEntry) bool {
		return e.in.HTTP != nil && (e.in.Kind == KindClose || e.in.Kind == KindResponse && len(e.raw) == 0 && !isSSE(e.in.HTTP.Headers))
	}
	follow := map[int][]int{}
	for i := range entries {
		if e := &entries[i]; attached(e) {
			follow[e.after] = append(follow[e.after], i)
		}
	}
	order := make([]int, 0, len(entries))
	var place func(i int)
	place = func(i int) {
		order = append(order, i)
		for _, j := range follow[i] {
			place(j)
		}
	}
	for i := range entries {
		if !attached(&entries[i]) {
			place(i)
		}
	}
	return order
}

// eventIDs renames server-sent event ids. An event id is an opaque token
// the client only hands back (as Last-Event-ID), and servers make them
// random (the go-sdk's are "<random stream id>_<index>"), which would make
// every recording differ. The part before the last "_" is renamed "s<n>",
// n counting distinct prefixes in order of first appearance; the rest is
// kept. Renaming is one to one, and applied alike to event ids and
// Last-Event-ID headers, so resumption replays as recorded.
type eventIDs struct {
	ids      map[string]string
	prefixes map[string]string
}

func (a *eventIDs) alias(id string) string {
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

// headerScan finds the protocol revision and server name of a session: from
// the initialize exchange, or, in revisions without one (2026-07-28 and
// later), from the "_meta" every message carries.
type headerScan struct {
	initID           string
	protocol, server string
	fromInit         bool
}

const (
	metaProtocol   = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
)

func (h *headerScan) scan(from string, m *msgInfo) {
	switch m.kind {
	case kindCall, kindNote:
		if from != FromClient {
			return
		}
		if m.method == "initialize" {
			h.initID = m.id
		}
		if h.protocol == "" {
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if json.Unmarshal(m.params, &p) == nil {
				json.Unmarshal(p.Meta[metaProtocol], &h.protocol)
			}
		}
	case kindResponse:
		if from != FromServer || m.error != nil || h.fromInit {
			return
		}
		if h.initID != "" && m.id == h.initID {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
			}
			json.Unmarshal(m.result, &r)
			h.protocol, h.server, h.fromInit = r.ProtocolVersion, r.ServerInfo.Name, true
			return
		}
		if h.server == "" {
			var r struct {
				Meta map[string]struct {
					Name string `json:"name"`
				} `json:"_meta"`
			}
			if json.Unmarshal(m.result, &r) == nil {
				h.server = r.Meta[metaServerInfo].Name
			}
		}
	}
}
