package cassette

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// volatileHeaders are left out of a cassette: they change from run to run
// or describe the connection rather than the exchange.
var volatileHeaders = []string{"Date", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer", "Upgrade", "Proxy-Connection"}

// secretHeaders are always redacted.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// buildHTTP turns captured entries into a redacted, validated cassette.
func buildHTTP(path string, entries []hEntry, o *Options) (*Cassette, error) {
	red := newRedactor(o)
	secret := map[string]bool{}
	for _, h := range append(append([]string(nil), secretHeaders...), o.RedactHeaders...) {
		secret[http.CanonicalHeaderKey(h)] = true
	}
	var hs headerScan
	ids := eventIDs{}
	c := &Cassette{File: path, Header: Header{Format: FormatName, Version: Version, Transport: transport.KindStreamableHTTP.String()}}
	calls := map[int]jsonrpc.ID{} // stream → the call its request carries
	answered := map[int]bool{}    // streams whose call was answered on them
	for _, i := range lineOrder(entries) {
		e := entries[i]
		in := e.in
		in.pair = -1
		if in.Kind == KindClose && answered[in.Stream] && in.End != EndError {
			// Once a POST stream has carried the answer to its call, the
			// client reads nothing more from it: how it ended after that
			// (the server's end, the client's drain, the session's end) is
			// timing, not behaviour.
			in.End = EndEOF
		}
		in.URL = red.text(in.URL)
		in.Event, in.ID, in.Retry = red.text(in.Event), red.text(ids.alias(in.ID)), red.text(in.Retry)
		if v := in.Headers.Get("Last-Event-ID"); v != "" {
			in.Headers = in.Headers.Clone()
			in.Headers.Set("Last-Event-ID", ids.alias(v))
		}
		in.Headers = redactHeaders(red, secret, in.Headers)
		if len(e.raw) > 0 {
			if msg, err := jsonrpc.DecodeMessage(e.raw); err == nil {
				tree, err := decodeTree(e.raw)
				if err != nil {
					return nil, fmt.Errorf("decoding a message: %w", err)
				}
				hs.scan(in.side(), msg, func() any { return tree })
				switch m := msg.(type) {
				case *jsonrpc.Request:
					if in.Kind == KindRequest && m.IsCall() {
						calls[in.Stream] = m.ID
					}
				case *jsonrpc.Response:
					if id, ok := calls[in.Stream]; ok && in.Kind == KindEvent && id == m.ID {
						answered[in.Stream] = true
					}
				}
				in.Message = encodeTree(red.tree(tree))
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
	// Check what Load will check, on the bytes that will be written.
	parsed, err := Parse(path, c.Marshal())
	if err != nil {
		return nil, fmt.Errorf("recorded session would not load: %w", err)
	}
	return parsed, nil
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
		return e.in.Kind == KindClose || e.in.Kind == KindResponse && len(e.raw) == 0 && !isSSE(e.in.Headers)
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

// redactHeaders returns h without volatile headers, secret headers replaced
// by placeholders and every other value redacted as text.
func redactHeaders(red *redactor, secret map[string]bool, h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		if isVolatile(ck) {
			continue
		}
		nvs := make([]string, len(vs))
		for i, v := range vs {
			if secret[ck] {
				nvs[i] = redactCredential(red, v)
			} else {
				nvs[i] = red.text(v)
			}
		}
		out[ck] = nvs
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func isVolatile(k string) bool {
	for _, v := range volatileHeaders {
		if k == v {
			return true
		}
	}
	return false
}

// redactCredential replaces a credential by a placeholder, keeping an
// authorization scheme ("Bearer REDACTED-1"). A value the recorder was told
// about (a Secret or Revealer) gets its own placeholder.
func redactCredential(red *redactor, v string) string {
	if placeholderRE.FindString(v) == v && v != "" {
		return v
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && isToken(scheme) && strings.TrimSpace(rest) != "" {
		rest = strings.TrimSpace(rest)
		if placeholderRE.FindString(rest) == rest {
			return scheme + " " + rest
		}
		return scheme + " " + red.placeholder(rest)
	}
	return red.placeholder(v)
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
