package hostileclient_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/server"
)

// cases are every attack of the matrix, by group.
var cases = slices.Concat(bodyCases, jsonCases, idCases, headerCases, rebindingCases, sessionCases, continuationCases, taskCases, slowCases, concurrencyCases)

// echo26 is a 2026-07-28 call of echo, its params ending with more.
func echo26(id, more string) (string, header) { return call26(id, "echo", `{"text":"hi"}`, more) }

// sent posts a 2026-07-28 request built by build and returns its answer.
func sent(body string, hs header) func(*testing.T, *target) string {
	return func(t *testing.T, tg *target) string { return tg.post(t, body, hs, nil).String() }
}

// padded is an echo call of exactly n bytes.
func padded(n int) string {
	body, _ := echo26("1", "")
	return strings.Replace(body, `"text":"hi"`, `"text":"hi`+strings.Repeat("x", n-len(body))+`"`, 1)
}

var bodyCases = []hostileCase{
	{group: "bodies", name: "a body at the bound", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			_, hs := echo26("1", "")
			return tg.post(t, padded(maxBody), hs, nil).String()
		}, want: both("200", 1)},
	{group: "bodies", name: "a body one byte past the bound", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			_, hs := echo26("1", "")
			return tg.post(t, padded(maxBody+1), hs, nil).String()
		}, want: both("413", 0)},
	{group: "bodies", name: "a chunked body past the bound", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			_, hs := echo26("1", "")
			return tg.post(t, padded(4*maxBody), hs, func(r *http.Request) {
				r.ContentLength = -1
				r.Body = io.NopCloser(strings.NewReader(padded(4 * maxBody)))
			}).String()
		}, want: both("413", 0)},
	{group: "bodies", name: "an empty body", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			_, hs := echo26("1", "")
			return tg.post(t, "", hs, nil).String()
		}, want: both("400", 0)},
	{group: "bodies", name: "a body that is not JSON", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			_, hs := echo26("1", "")
			return tg.post(t, "{not json", hs, nil).String()
		}, want: both("400", 0)},
	{group: "bodies", name: "arguments nested 1,001 deep", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call26("1", "echo", strings.Repeat(`{"a":`, 1001)+"1"+strings.Repeat("}", 1001), "")
			return tg.post(t, body, hs, nil).String()
		}, want: both("400", 0)},
}

var jsonCases = []hostileCase{
	{group: "JSON", name: `"_META" for "_meta", no headers`, sdk: "stateless",
		attack: sent(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil),
		want:   both("400/-32600", 0)},
	{group: "JSON", name: `"_Meta" with a made-up version`, sdk: "stateless",
		attack: sent(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_Meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`, nil),
		want:   both("400/-32600", 0)},
	{group: "JSON", name: `"PARAMS" beside "params"`, sdk: "stateless",
		attack: sent(`{"jsonrpc":"2.0","id":1,"method":"tools/call","PARAMS":{`+meta+`},"params":{"name":"echo","arguments":{}}}`, nil),
		want:   both("400/-32600", 0)},
	{group: "JSON", name: `"method" given twice`, sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, strings.Replace(body, `"method":"tools/call"`, `"method":"tools/list","method":"tools/call"`, 1), hs, nil).String()
		}, want: both("400/-32600", 0)},
	{group: "JSON", name: `"Method" for "method"`, sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, strings.Replace(body, `"method"`, `"Method"`, 1), hs, nil).String()
		}, want: both("400/-32600", 0)},
	{group: "JSON", name: "the protocol version given twice in _meta", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, strings.Replace(body, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25",`, 1), hs, nil).String()
		}, want: both("400/-32600", 0)},
	{group: "JSON", name: "no revision: no _meta, no headers", sdk: "stateful",
		attack: sent(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, nil),
		want:   byMode(outcome{"400/-32020", 0}, outcome{"200", 1})},
	{group: "JSON", name: "no revision: a notification alone", sdk: "stateful",
		attack: sent(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context canceled"}}`, nil),
		want:   both("202", 0)},
	{group: "JSON", name: "a batch on 2026-07-28", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, "["+body+"]", hs, nil).String()
		}, want: both("400", 0)},
}

// idAnswer is the answer to a call with id, and the id replied.
func idAnswer(id string) func(*testing.T, *target) string {
	return func(t *testing.T, tg *target) string {
		body, hs := echo26(id, "")
		a := tg.post(t, body, hs, nil)
		return a.String() + " id " + a.id
	}
}

var idCases = []hostileCase{
	{group: "ids", name: "a string id", sdk: "stateless", attack: idAnswer(`"call-1"`), want: both(`200 id "call-1"`, 1)},
	{group: "ids", name: "an integer id past 2^53", sdk: "stateless", attack: idAnswer("9007199254740993"), want: both("400/-32600 id null", 0)},
	{group: "ids", name: "an id past int64", sdk: "stateless", attack: idAnswer("123456789012345678901234567890"), want: both("400/-32600 id null", 0)},
	{group: "ids", name: "a fractional id", sdk: "stateless", attack: idAnswer("1.5"), want: both("400/-32600 id null", 0)},
	{group: "ids", name: "a null id", sdk: "stateless", attack: idAnswer("null"), want: both("400/-32600 id null", 0)},
	{group: "ids", name: "an id with a lone surrogate", sdk: "stateless", attack: idAnswer(`"\ud800"`), want: both("400/-32600 id null", 0)},
}

var headerCases = []hostileCase{
	{group: "headers", name: "Mcp-Method differs from the body", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			hs[3] = "tools/list"
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32020", 0)},
	{group: "headers", name: "Mcp-Name differs from the body", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			hs[5] = "rm"
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32020", 0)},
	{group: "headers", name: "Mcp-Method sent twice", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, body, append(header{"Mcp-Method", "tools/list"}, hs...), nil).String()
		}, want: both("400/-32020", 0)},
	{group: "headers", name: "Mcp-Protocol-Version differs from _meta", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			hs[1] = "2026-08-01"
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32020", 0)},
	{group: "headers", name: "Mcp-Param-* for no argument", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, body, append(hs, "Mcp-Param-Text", "hi"), nil).String()
		}, want: both("400/-32020", 0)},
	{group: "headers", name: "a mirrored argument no header carries", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call26("1", "level", `{"n":1e300}`, "")
			return tg.post(t, body, append(hs, "Mcp-Param-N", "1e300"), nil).String()
		}, want: both("400/-32602", 0)},
}

var rebindingCases = []hostileCase{
	{group: "rebinding", name: "a Host that is not loopback", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, body, hs, func(r *http.Request) { r.Host = "evil.example" }).String()
		}, want: both("403", 0)},
	{group: "rebinding", name: "an Origin of another site", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := echo26("1", "")
			return tg.post(t, body, append(hs, "Origin", "http://evil.example"), nil).String()
		}, want: both("403", 0)},
}

var sessionCases = []hostileCase{
	{group: "sessions", name: "a session id never issued", modes: []string{"default"}, sdk: "stateful",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call25("forged")
			return tg.post(t, body, hs, nil).String()
		}, want: both("404", 0)},
	{group: "sessions", name: "a call without a session, 2025-11-25", sdk: "stateful",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call25("")
			return tg.post(t, body, hs[2:], nil).String()
		}, want: byMode(outcome{"400/-32600", 0}, outcome{"200", 1})},
	{group: "sessions", name: "sessions past the bound (3)", modes: []string{"default"}, sdk: "stateful",
		attack: func(t *testing.T, tg *target) string {
			var ids []string
			for range maxSessions {
				id, _ := tg.open(t, nil)
				ids = append(ids, id)
			}
			_, refused := tg.open(t, nil)
			serving := 0
			for _, id := range ids {
				if body, hs := call25(id); tg.post(t, body, hs, nil).status == http.StatusOK {
					serving++
				}
			}
			tg.execs.Add(-int64(serving)) // the open sessions' own calls
			return refused.String() + ", " + strconv.Itoa(serving) + " open serve"
		}, want: both("503/-32603, 3 open serve", 0)},
	{group: "sessions", name: "another principal's session", modes: []string{"default"}, sdk: "stateful", wrap: bearer,
		attack: func(t *testing.T, tg *target) string {
			id, _ := tg.open(t, as("alice"))
			body, hs := call25(id)
			return tg.post(t, body, hs, as("bob")).String()
		}, want: both("403", 0)},
}

var continuationCases = []hostileCase{
	{group: "continuations", name: "continued once", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			state := tg.ask(t)
			tg.mark()
			return tg.answer(t, state, nil).String()
		}, want: both("200", 1)},
	{group: "continuations", name: "replayed", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			state := tg.ask(t)
			tg.answer(t, state, nil)
			tg.mark()
			return tg.answer(t, state, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "continuations", name: "tampered", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			state := []byte(tg.ask(t))
			state[len(state)/2] ^= 1
			tg.mark()
			return tg.answer(t, string(state), nil).String()
		}, want: both("400/-32602", 0)},
	{group: "continuations", name: "moved to another path", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			state := tg.ask(t)
			tg.mark()
			body, hs := call26("2", "rm", `{"path":"/etc"}`, `,"inputResponses":{"confirm":{"action":"accept","content":{}}},"requestState":`+quote(state))
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "continuations", name: "expired (StateTTL 1 ns)", sdk: "stateless",
		edit: func(o *server.Options, _ *server.HTTPOptions) { o.StateTTL = 1 },
		attack: func(t *testing.T, tg *target) string {
			state := tg.ask(t)
			tg.mark()
			return tg.answer(t, state, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "continuations", name: "answers without a state", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			body, hs := call26("2", "rm", `{"path":"/a"}`, `,"inputResponses":{"confirm":{"action":"accept","content":{}}}`)
			return tg.post(t, body, hs, nil).String()
		}, want: both("400/-32602", 0)},
	{group: "continuations", name: "another principal's continuation", sdk: "stateless", wrap: bearer,
		attack: func(t *testing.T, tg *target) string {
			body, hs := call26("1", "rm", `{"path":"/a"}`, "")
			a := tg.post(t, body, hs, as("alice"))
			state := stateOf(a.body)
			tg.mark()
			return tg.answer(t, state, as("bob")).String()
		}, want: both("400/-32602", 0)},
}

// stateOf finds the requestState in a reply.
func stateOf(body string) string {
	_, rest, _ := strings.Cut(body, `"requestState":"`)
	state, _, _ := strings.Cut(rest, `"`)
	return state
}
