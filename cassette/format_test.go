package cassette_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

// good is a minimal valid cassette, as a hand-editor would see it.
const good = `{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}}}
{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"docs","version":"1"}}}}
{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}}
{"kind":"close","end":"client","stderr":"ready\n"}
{"kind":"end"}
`

// goodV1 is good as version 1 wrote it: no ending, a stderr line.
const goodV1 = `{"format":"mcprig-cassette","version":1,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}}}
{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"docs","version":"1"}}}}
{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}}
{"kind":"stderr","text":"ready\n"}
{"kind":"end"}
`

// edit replaces old by new in good, once; the test fails if old is absent.
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(good, old) {
		t.Fatalf("good cassette lacks %q", old)
	}
	return strings.Replace(good, old, new, 1)
}

func marshal(t testing.TB, c *cassette.Cassette) string {
	t.Helper()
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLoadGood: a loaded cassette marshals back to its bytes; a
// non-canonical message is read canonical.
func TestLoadGood(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "good.jsonl")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, marshal(t, c)); diff != "" {
		t.Errorf("Marshal(Load) mismatch (-file +marshaled):\n%s", diff)
	}
	if got := c.Kind().String(); got != "stdio" {
		t.Errorf("Kind = %s, want stdio", got)
	}
	spaced := edit(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, `{ "params" : {}, "method":"notifications/initialized", "jsonrpc":"2.0" }`)
	c, err = cassette.Parse("spaced.jsonl", []byte(spaced))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, marshal(t, c)); diff != "" {
		t.Errorf("a hand-spaced message is not read canonical (-want +got):\n%s", diff)
	}
}

// TestLoadSkipsByteOrderMark: a UTF-8 byte order mark an editor put at the
// start of the file is skipped, as RFC 8259 §8.1 allows: the cassette
// loads as it would without it (and writes without it), at Load and Parse.
func TestLoadSkipsByteOrderMark(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "bom.jsonl")
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatalf("Load of a cassette with a byte order mark: %v", err)
	}
	if diff := cmp.Diff(good, marshal(t, c)); diff != "" {
		t.Errorf("Marshal(Load) mismatch (-want +got):\n%s", diff)
	}
	if c.Header.Server != "docs" || len(c.Interactions) != 4 {
		t.Errorf("loaded header %+v and %d lines, want server docs and 4 lines", c.Header, len(c.Interactions))
	}
}

// TestLoadVersion1: a version-1 cassette is read as the version-2 cassette
// it stands for (its stderr tail in the client's ending), and Marshal
// writes that.
func TestLoadVersion1(t *testing.T) {
	leakcheck.Check(t)
	c, err := cassette.Parse("v1.jsonl", []byte(goodV1))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, marshal(t, c)); diff != "" {
		t.Errorf("version 1 read as (-want +got):\n%s", diff)
	}
	// A stderr line is version 1's only.
	if _, err := cassette.Parse("v2.jsonl", []byte(strings.Replace(goodV1, `"version":1`, `"version":2`, 1))); err == nil {
		t.Error("a version-2 cassette with a stderr line loaded")
	}
}

func TestLoadBadInput(t *testing.T) {
	leakcheck.Check(t)
	endLine := strings.Count(good, "\n")
	for _, tc := range []struct {
		name   string
		data   string
		line   int
		want   string // in the error text
		reason cassette.FormatReason
	}{
		{"empty", "", 0, "empty file", cassette.FormatInvalid},
		{"truncated mid-line", good[:len(good)-20], 5, "truncated", cassette.FormatTruncated},
		{"truncated at a line end", strings.TrimSuffix(good, `{"kind":"end"}`+"\n"), endLine - 1, "truncated", cassette.FormatTruncated},
		{"corrupted JSON", edit(t, `"from":"server","message":{`, `"from":"server","message":{{`), 3, "invalid character", cassette.FormatInvalid},
		{"binary garbage", edit(t, `{"kind":"close","end":"client","stderr":"ready\n"}`, "\x00\xff\xfe"), 5, "invalid character", cassette.FormatInvalid},
		{"future version", edit(t, `"version":2`, `"version":3`), 1, "upgrade", cassette.FormatVersion},
		{"version zero", edit(t, `"version":2`, `"version":0`), 1, "version 0", cassette.FormatVersion},
		{"not a cassette", edit(t, `"format":"mcprig-cassette"`, `"format":"vcr"`), 1, `format "vcr"`, cassette.FormatInvalid},
		{"unknown transport", edit(t, `"transport":"stdio"`, `"transport":"carrier-pigeon"`), 1, "unknown kind", cassette.FormatInvalid},
		{"header without server", edit(t, `,"server":"docs"`, ``), 1, "without protocol or server", cassette.FormatInvalid},
		{"unknown header field", edit(t, `"server":"docs"`, `"server":"docs","recorded":"today"`), 1, "unknown field", cassette.FormatInvalid},
		{"unknown kind", edit(t, `{"kind":"close"`, `{"kind":"video"`), 5, `unknown kind "video"`, cassette.FormatInvalid},
		{"unknown from", edit(t, `"from":"client","message":{"jsonrpc"`, `"from":"proxy","message":{"jsonrpc"`), 4, `from "proxy"`, cassette.FormatInvalid},
		{"unknown line field", edit(t, `{"kind":"close",`, `{"kind":"close","ms":12,`), 5, "unknown field", cassette.FormatInvalid},
		{"not JSON-RPC", edit(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, `{"hello":1}`), 4, "message", cassette.FormatInvalid},
		{"response to nothing", edit(t, `"from":"server","message":{"id":1`, `"from":"server","message":{"id":9`), 3, "answers no pending client request", cassette.FormatInvalid},
		{"header disagrees with initialize", edit(t, `"serverInfo":{"name":"docs"`, `"serverInfo":{"name":"other"`), 3, "disagrees with the header", cassette.FormatInvalid},
		{"content after end", good + `{"kind":"close","end":"client"}` + "\n", endLine + 1, "after the end line", cassette.FormatInvalid},
		{"blank line", edit(t, "\n{\"kind\":\"end\"}", "\n\n{\"kind\":\"end\"}"), endLine, "EOF", cassette.FormatInvalid},
		{"unknown ending", edit(t, `"end":"client"`, `"end":"vanished"`), 5, `session ending "vanished"`, cassette.FormatInvalid},
		{"unknown class", edit(t, `"end":"client"`, `"end":"error","class":"cosmic"`), 5, `class "cosmic"`, cassette.FormatInvalid},
		{"pending in a server's ending", edit(t, `"end":"client"`, `"end":"eof","pending":[1]`), 5, "pending calls", cassette.FormatInvalid},
		{"server message after the end", edit(t, `{"kind":"end"}`, `{"kind":"message","from":"server","message":{"jsonrpc":"2.0","method":"x"}}`+"\n"+`{"kind":"end"}`), 6, "after the session's end", cassette.FormatInvalid},
		{"close without an ending", edit(t, `{"kind":"close","end":"client","stderr":"ready\n"}`, `{"kind":"close"}`), 5, "without an ending", cassette.FormatInvalid},
		{"byte order mark inside", edit(t, "\n{\"kind\":\"end\"}", "\n\xef\xbb\xbf{\"kind\":\"end\"}"), endLine, "byte order mark", cassette.FormatInvalid},
		{"byte order mark alone", "\xef\xbb\xbf", 0, "empty file", cassette.FormatInvalid},
		{"request line in a stdio cassette", edit(t, `{"kind":"close","end":"client","stderr":"ready\n"}`, `{"kind":"request","stream":1,"method":"GET","url":"/"}`), 5, "request line in a stdio cassette", cassette.FormatInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cassette.Parse("bad.jsonl", []byte(tc.data))
			var ferr *cassette.FormatError
			if !errors.As(err, &ferr) {
				t.Fatalf("Parse = %v, %v; want a *FormatError", c, err)
			}
			if ferr.File != "bad.jsonl" || ferr.Line != tc.line {
				t.Errorf("FormatError at %s:%d, want bad.jsonl:%d (%v)", ferr.File, ferr.Line, tc.line, err)
			}
			mustContain(t, "error", err.Error(), "bad.jsonl", tc.want)
			if got := ferr.Reason(); got != tc.reason {
				t.Errorf("Reason() of %v = %v, want %v", err, got, tc.reason)
			}
		})
	}
}

func TestLoadReusedRequestID(t *testing.T) {
	leakcheck.Check(t)
	// A client request reusing the id of one still pending.
	data := strings.Replace(good, `{"kind":"message","from":"server"`, `{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"ping"}}`+"\n"+`{"kind":"message","from":"server"`, 1)
	_, err := cassette.Parse("dup.jsonl", []byte(data))
	var ferr *cassette.FormatError
	if !errors.As(err, &ferr) || ferr.Line != 3 {
		t.Fatalf("Parse = %v, want a *FormatError at line 3", err)
	}
	mustContain(t, "error", err.Error(), "already pending since line 2")
}

func TestLoadMissingFile(t *testing.T) {
	leakcheck.Check(t)
	_, err := cassette.Load(filepath.Join(t.TempDir(), "absent.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file = %v, want os.ErrNotExist", err)
	}
}

// TestParseKeepsNoReference: Parse copies what it keeps, so the caller may
// reuse its buffer.
func TestParseKeepsNoReference(t *testing.T) {
	data := []byte(good)
	c, err := cassette.Parse("good.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	if diff := cmp.Diff(good, marshal(t, c)); diff != "" {
		t.Errorf("the cassette changed with the caller's buffer (-want +got):\n%s", diff)
	}
}

// TestBuiltInCodeReplays: a cassette built from exported fields, its
// messages not even canonical, replays as its parsed twin does; and one
// built wrong fails at Replay with the *FormatError Parse gives.
func TestBuiltInCodeReplays(t *testing.T) {
	leakcheck.Check(t)
	msg := func(from, s string) cassette.Interaction {
		return cassette.Interaction{Kind: cassette.KindMessage, From: from, Message: json.RawMessage(s)}
	}
	c := &cassette.Cassette{
		File:   "built",
		Header: cassette.Header{Format: cassette.FormatName, Version: cassette.Version, Transport: "inprocess", Protocol: rev2025, Server: "counter"},
		Interactions: []cassette.Interaction{
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}},"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"tester","version":"v1"}}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"counter","version":"v1"}}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count", "arguments":{"label":"built"}}}`),
			msg(cassette.FromServer, `{ "jsonrpc":"2.0", "id":2, "result":{"content":[{"type":"text","text":"built #1"}]} }`),
			{Kind: cassette.KindClose, Ending: &cassette.Ending{End: cassette.EndClient}},
		},
	}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := cassette.Parse("parsed", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range []*cassette.Cassette{c, parsed} {
		f, err := cassette.Replay(cc, nil, nil)
		if err != nil {
			t.Fatalf("Replay(%s): %v", cc.File, err)
		}
		outs, err := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "built"}})
		if err != nil || len(outs) != 1 || outs[0].Text != "built #1" {
			t.Errorf("%s replayed %v, %v; want built #1", cc.File, outs, err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("%s Close: %v", cc.File, err)
		}
	}
	// Built wrong: the same error as Parse's, at the same line.
	bad := *c
	bad.Interactions = append([]cassette.Interaction(nil), c.Interactions...)
	bad.Interactions[4] = msg(cassette.FromServer, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	_, rerr := cassette.Replay(&bad, nil, nil)
	data, _ = bad.Marshal()
	_, perr := cassette.Parse("built", data)
	var ferr *cassette.FormatError
	if !errors.As(rerr, &ferr) || perr == nil || rerr.Error() != perr.Error() {
		t.Errorf("Replay of a broken cassette = %v, want Parse's %v", rerr, perr)
	}
	// A version this package does not know, the next one or none, is refused
	// as Load refuses it.
	for _, v := range []int{cassette.Version + 1, 0} {
		future := *c
		future.Header.Version = v
		if _, err := cassette.Replay(&future, nil, nil); !errors.As(err, &ferr) || ferr.Reason() != cassette.FormatVersion || ferr.Line != 1 {
			t.Errorf("Replay of a cassette built at version %d = %v, want a *FormatError at line 1 for FormatVersion", v, err)
		}
	}
	// An HTTP line built without its HTTP fields is refused, not a panic.
	broken := *c
	broken.Header.Transport = "streamablehttp"
	broken.Interactions = []cassette.Interaction{{Kind: cassette.KindRequest}}
	if _, err := cassette.Replay(&broken, nil, nil); !errors.As(err, &ferr) {
		t.Errorf("Replay of a request without HTTP fields = %v, want a *FormatError", err)
	}
	broken.Interactions = []cassette.Interaction{{Kind: cassette.KindRequest, HTTP: &cassette.HTTP{Stream: 1, Method: "GET", URL: "/mcp", Headers: http.Header{}}}}
	if _, err := cassette.Replay(&broken, nil, nil); !errors.As(err, &ferr) {
		t.Errorf("Replay of a request without a response = %v, want a *FormatError", err)
	}
}

// TestBuiltInCodeReplaysHTTP: an HTTP cassette built in code, each line a
// fresh value with its message written loosely (indented, keys as they
// come), replays as the file it was copied from: the player builds its
// streams, events and keys from the exported fields alone.
func TestBuiltInCodeReplaysHTTP(t *testing.T) {
	leakcheck.Check(t)
	src, err := cassette.Load("testdata/http.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	built := &cassette.Cassette{File: "built", Header: src.Header}
	for _, in := range src.Interactions {
		line := cassette.Interaction{Kind: in.Kind, From: in.From, Text: in.Text}
		if in.Message != nil {
			var b bytes.Buffer
			if err := json.Indent(&b, in.Message, "", "  "); err != nil {
				t.Fatal(err)
			}
			line.Message = b.Bytes()
		}
		if in.HTTP != nil {
			h := *in.HTTP
			h.Headers = in.HTTP.Headers.Clone()
			line.HTTP = &h
		}
		if in.Ending != nil {
			e := *in.Ending
			line.Ending = &e
		}
		built.Interactions = append(built.Interactions, line)
	}
	f, err := cassette.Replay(built, nil, &cassette.Options{Secrets: []string{"s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := session(t, f, rev2025, script...)
	if err != nil {
		t.Fatal(err)
	}
	want := []outcome{{Text: "first #1"}, {Text: `roots=1 sampled="hi" elicited=Ada`}, {Text: "second #3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replayed outcomes mismatch (-want +got):\n%s", diff)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestLoadRequestRefusedThenSentAgain: an HTTP request refused outside
// JSON-RPC (a 401 asking for a DPoP nonce) leaves its call unanswered, so
// the client's second send of it with the same id loads; the same id sent
// again while its first send's stream is not refused does not.
func TestLoadRequestRefusedThenSentAgain(t *testing.T) {
	leakcheck.Check(t)
	const head = `{"format":"mcprig-cassette","version":2,"transport":"streamablehttp","protocol":"2026-07-28","server":"docs"}` + "\n"
	const req = `{"kind":"request","stream":%d,"method":"POST","url":"/mcp","message":{"id":1,"jsonrpc":"2.0","method":"tools/list","params":{}}}` + "\n"
	const answer = `{"kind":"response","stream":2,"status":200,"headers":{"Content-Type":["application/json"]},"message":{"id":1,"jsonrpc":"2.0","result":{"tools":[]}}}` + "\n" +
		`{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n"
	for _, tc := range []struct {
		name   string
		status int
		ok     bool
	}{
		{"401", 401, true},
		{"403", 403, true},
		{"503", 503, true},
		{"202", 202, false}, // accepted: the call may still be answered
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := fmt.Sprintf(`{"kind":"response","stream":1,"status":%d,"text":"no"}`+"\n", tc.status)
			data := head + fmt.Sprintf(req, 1) + first + fmt.Sprintf(req, 2) + answer
			_, err := cassette.Parse("again.jsonl", []byte(data))
			switch {
			case tc.ok && err != nil:
				t.Fatalf("Parse = %v, want the call sent again after a %d to load", err, tc.status)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), "already pending since line 2")):
				t.Fatalf("Parse = %v, want the id already pending since line 2", err)
			}
		})
	}
}
