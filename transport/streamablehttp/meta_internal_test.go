package streamablehttp

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/testkit"
)

// fillOutcome is what fill does with a body: the body it sends (or
// "unchanged") and the triple it keeps.
func fillOutcome(t *testing.T, fill func(*http.Request, []byte) (*http.Request, error), m *requestMeta, body []byte) (string, map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	out, err := fill(req, body)
	sent := "unchanged"
	switch {
	case err != nil:
		sent = "error"
	case out != req:
		b, _ := io.ReadAll(out.Body)
		sent = string(b)
	}
	kept := map[string]string{}
	for k, v := range m.last {
		kept[k] = string(v)
	}
	return sent, kept
}

// fastFill is m.fill given the header preparePost gives it.
func fastFill(m *requestMeta) func(*http.Request, []byte) (*http.Request, error) {
	return func(req *http.Request, body []byte) (*http.Request, error) {
		h, ok := readHeader(body)
		if !ok {
			return m.fill(req, body, nil)
		}
		return m.fill(req, body, &h)
	}
}

// FuzzMetaFill checks fill's shortcut (keepComplete, a call that carries
// its revision's _meta) against its reading of the whole body: for any
// body, after a body that set the triple, the same body is sent and the
// same triple kept.
func FuzzMetaFill(f *testing.F) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"v0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `,"name":"count"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `},"params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `,"_meta":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_META":{"io.modelcontextprotocol/protocolVersion":"x"}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `}} trailing`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":5}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}} 0`,
	} {
		f.Add([]byte(s))
	}
	first := []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast, read requestMeta
		fillOutcome(t, fastFill(&fast), &fast, first)
		fillOutcome(t, read.fillRead, &read, first)
		gotSent, gotKept := fillOutcome(t, fastFill(&fast), &fast, body)
		wantSent, wantKept := fillOutcome(t, read.fillRead, &read, body)
		if diff := cmp.Diff(wantSent, gotSent); diff != "" {
			t.Fatalf("on %q: body sent (-whole reading +fill):\n%s", body, diff)
		}
		if diff := cmp.Diff(wantKept, gotKept); diff != "" {
			t.Fatalf("on %q: triple kept (-whole reading +fill):\n%s", body, diff)
		}
	})
}

// A call that carries its _meta is read without a copy: its triple is
// kept once, and then only compared. The two allocations are the two
// levels it parses into below the message's header, which preparePost
// reads once for the call and for this (reading the whole body into maps
// took 55).
func TestMetaFillAllocs(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"v0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"count","arguments":{}}}`)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	var m requestMeta
	h, _ := readHeader(body)
	if got := testing.AllocsPerRun(100, func() { m.fill(req, body, &h) }); got > 2 {
		t.Errorf("fill of a call with its _meta: %v allocations, want at most 2", got)
	}
}
