package cassette_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

// good is a minimal valid cassette, as a hand-editor would see it.
const good = `{"format":"mcprig-cassette","version":1,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
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

func TestLoadGood(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "good.jsonl")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, string(c.Marshal())); diff != "" {
		t.Errorf("Marshal(Load) mismatch (-file +marshaled):\n%s", diff)
	}
	if got := c.Kind().String(); got != "stdio" {
		t.Errorf("Kind = %s, want stdio", got)
	}
}

func TestLoadBadInput(t *testing.T) {
	leakcheck.Check(t)
	endLine := strings.Count(good, "\n")
	for _, tc := range []struct {
		name string
		data string
		line int
		want string // in the error text
		is   error  // if not nil, errors.Is must hold
	}{
		{"empty", "", 0, "empty file", nil},
		{"truncated mid-line", good[:len(good)-20], 5, "truncated", cassette.ErrTruncated},
		{"truncated at a line end", strings.TrimSuffix(good, `{"kind":"end"}`+"\n"), endLine - 1, "truncated", cassette.ErrTruncated},
		{"corrupted JSON", edit(t, `"from":"server","message":{`, `"from":"server","message":{{`), 3, "invalid character", nil},
		{"binary garbage", edit(t, `{"kind":"stderr","text":"ready\n"}`, "\x00\xff\xfe"), 5, "invalid character", nil},
		{"future version", edit(t, `"version":1`, `"version":2`), 1, "upgrade", cassette.ErrVersion},
		{"version zero", edit(t, `"version":1`, `"version":0`), 1, "version 0", cassette.ErrVersion},
		{"not a cassette", edit(t, `"format":"mcprig-cassette"`, `"format":"vcr"`), 1, `format "vcr"`, nil},
		{"unknown transport", edit(t, `"transport":"stdio"`, `"transport":"carrier-pigeon"`), 1, "unknown kind", nil},
		{"header without server", edit(t, `,"server":"docs"`, ``), 1, "without protocol or server", nil},
		{"unknown header field", edit(t, `"server":"docs"`, `"server":"docs","recorded":"today"`), 1, "unknown field", nil},
		{"unknown kind", edit(t, `{"kind":"stderr"`, `{"kind":"video"`), 5, `unknown kind "video"`, nil},
		{"unknown from", edit(t, `"from":"client","message":{"jsonrpc"`, `"from":"proxy","message":{"jsonrpc"`), 4, `from "proxy"`, nil},
		{"unknown interaction field", edit(t, `{"kind":"stderr",`, `{"kind":"stderr","ms":12,`), 5, "unknown field", nil},
		{"not JSON-RPC", edit(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, `{"hello":1}`), 4, "message", nil},
		{"response to nothing", edit(t, `"from":"server","message":{"id":1`, `"from":"server","message":{"id":9`), 3, "answers no pending client request", nil},
		{"header disagrees with initialize", edit(t, `"serverInfo":{"name":"docs"`, `"serverInfo":{"name":"other"`), 3, "disagrees with the header", nil},
		{"content after end", good + `{"kind":"stderr","text":"late"}` + "\n", endLine + 1, "after the end line", nil},
		{"blank line", edit(t, "\n{\"kind\":\"end\"}", "\n\n{\"kind\":\"end\"}"), endLine, "EOF", nil},
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
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
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
