package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idCases are ids and what the reply carries: the id itself (by value:
// 1e2 is 100), or a refusal (-32600, id null) before any handler runs.
var idCases = []struct {
	id, reply string // reply "": refused
}{
	{"7", "7"},
	{`"call-7"`, `"call-7"`},
	{`"\u00e9"`, `"é"`},
	{"1e2", "100"},
	{"-9007199254740992", "-9007199254740992"},
	{"9007199254740993", ""},
	{"123456789012345678901234567890", ""},
	{"1.5", ""},
	{"null", ""},
	{`"\ud800"`, ""},
}

// stdioSession serves s over ServeStdio on pipes, and returns a function
// that writes a frame and one that reads the next line written, each
// failing t after a deadline.
func stdioSession(t *testing.T, s *Server) (write func(string), read func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		for range lines {
		}
	})
	write = func(frame string) {
		t.Helper()
		if _, err := io.WriteString(inW, frame+"\n"); err != nil {
			t.Fatalf("writing %s: %v", frame, err)
		}
	}
	read = func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the session ended")
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no reply within 10s")
		}
		return ""
	}
	return write, read
}

// replyID returns the id member of a reply as it was written, and its
// error code (0: none).
func replyID(t *testing.T, reply string) (string, int64) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	var code int64
	if r.Error != nil {
		code = r.Error.Code
	}
	return string(r.ID), code
}

// TestIDsAnsweredAsSent sends a call with each id on every path a request
// takes: the reply carries the id (by value), or the request is refused
// with -32600 and id null before the tool runs.
func TestIDsAnsweredAsSent(t *testing.T) {
	paths := []struct {
		name string
		// ask sends a lookup call with id and returns the reply's id and
		// error code.
		ask func(t *testing.T, s *Server, id string) (string, int64)
	}{
		{"stdio", func(t *testing.T, s *Server, id string) (string, int64) {
			write, read := stdioSession(t, s)
			write(initialize(1))
			read()
			write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			write(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}}}`)
			return replyID(t, read())
		}},
		{"HTTP session", func(t *testing.T, s *Server, id string) (string, int64) {
			ts := serveHTTP(t, httpHandler(t, s, nil))
			cs := connectHTTP(t, ts, ts.URL)
			_, body := post(t, ts, cs, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}}}`, nil)
			return replyID(t, lastJSON(body))
		}},
		{"HTTP 2026-07-28", func(t *testing.T, s *Server, id string) (string, int64) {
			ts := serveHTTP(t, httpHandler(t, s, nil))
			_, _, body := send(t, ts, lookupCall(id, ","+meta, ""), current)
			return replyID(t, lastJSON(body))
		}},
		{"HTTP stateless, 2025-11-25", func(t *testing.T, s *Server, id string) (string, int64) {
			ts := serveHTTP(t, httpHandler(t, s, &HTTPOptions{Stateless: true}))
			_, _, body := send(t, ts, lookupCall(id, "", ""), header{"Mcp-Protocol-Version", "2025-11-25"})
			return replyID(t, lastJSON(body))
		}},
		{"legacy SSE", func(t *testing.T, s *Server, id string) (string, int64) {
			return sseAsk(t, s, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}}}`)
		}},
	}
	for _, p := range paths {
		for _, tc := range idCases {
			t.Run(p.name+"/"+tc.id, func(t *testing.T) {
				leakcheck.Check(t)
				s, runs := countingServer(t, nil)
				got, code := p.ask(t, s, tc.id)
				want, wantCode, wantRuns := tc.reply, int64(0), int64(1)
				if want == "" {
					want, wantCode, wantRuns = "null", jsonrpc.CodeInvalidRequest, 0
				}
				if got != want || code != wantCode {
					t.Errorf("reply id %s, code %d; want id %s, code %d", got, code, want, wantCode)
				}
				if n := runs.Load(); n != wantRuns {
					t.Errorf("the tool ran %d times, want %d", n, wantRuns)
				}
			})
		}
	}
}

// lastJSON returns the JSON-RPC message of a body: the body, or the data
// of its last event that holds one.
func lastJSON(body string) string {
	out := strings.TrimSpace(body)
	for line := range strings.Lines(body) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, `"jsonrpc"`) {
			out = strings.TrimSpace(d)
		}
	}
	return out
}

// TestStdioBatchWithABadID: a 2025-03-26 batch with one id the reply could
// not carry is refused whole, before any of it runs; the session goes on,
// and a good batch is answered.
func TestStdioBatchWithABadID(t *testing.T) {
	leakcheck.Check(t)
	s, runs := countingServer(t, nil)
	write, read := stdioSession(t, s)
	write(strings.Replace(initialize(1), "2025-11-25", "2025-03-26", 1))
	read()
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}}}`
	}
	write("[" + call("2") + "," + call("1.5") + "]")
	if id, code := replyID(t, read()); id != "null" || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("the batch with a bad id: id %s code %d; want null and -32600", id, code)
	}
	write("[" + call("3") + "," + call(`"4"`) + "]")
	var replies []struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(read()), &replies); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range replies {
		ids = append(ids, string(r.ID))
	}
	if diff := cmp.Diff([]string{"3", `"4"`}, ids); diff != "" {
		t.Errorf("the good batch's reply ids mismatch (-want +got):\n%s", diff)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("the tool ran %d times, want 2 (the good batch's)", got)
	}
}

// TestStdioValidCodes: a call before initialize, a handler error without
// a code and a *jsonrpc.Error of code 0 are answered with valid JSON-RPC
// codes on stdio, where the go-sdk sends code 0.
func TestStdioValidCodes(t *testing.T) {
	leakcheck.Check(t)
	s, _ := countingServer(t, nil)
	if err := s.RegisterResource(&mcp.Resource{URI: "file:///fire", Name: "fire"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, fmt.Errorf("disk on fire")
	}); err != nil {
		t.Fatal(err)
	}
	write, read := stdioSession(t, s)
	write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"}}}`)
	if _, code := replyID(t, read()); code != jsonrpc.CodeInvalidRequest {
		t.Errorf("a call before initialize: code %d, want -32600", code)
	}
	write(initialize(2))
	read()
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///fire"}}`)
	if _, code := replyID(t, read()); code != jsonrpc.CodeInternalError {
		t.Errorf("a resource handler's plain error: code %d, want -32603", code)
	}
}

// sseAsk opens a legacy SSE session by hand, initializes it, POSTs frame
// and returns the id and error code of its answer: the POST's own body
// when it is refused, else the answer on the session stream.
func sseAsk(t *testing.T, s *Server, frame string) (string, int64) {
	t.Helper()
	ts := serveHTTP(t, sseHandler(t, s, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	data := func() string {
		t.Helper()
		var d string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the session stream: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				d += strings.TrimSpace(v)
			}
			if line == "" && d != "" {
				return d
			}
		}
	}
	endpoint := ts.URL + data()
	postFrame := func(f string) (int, string) { return ssePost(t, ts, endpoint, f, nil) }
	postFrame(initialize(1))
	data()
	postFrame(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status, body := postFrame(frame); status != http.StatusAccepted {
		return replyID(t, body)
	}
	return replyID(t, data())
}

// TestHTTPValidCodes: handler errors that carry no JSON-RPC code (a plain
// error of a resource, a prompt or completion, a *jsonrpc.Error of code 0
// from a tool) are answered over HTTP as internal errors, -32603, where
// the go-sdk sends code 0.
func TestHTTPValidCodes(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", &Options{Completion: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		return nil, fmt.Errorf("no suggestions today")
	}})
	fire := fmt.Errorf("disk on fire")
	if err := s.RegisterResource(&mcp.Resource{URI: "file:///fire", Name: "fire"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, fire
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterPrompt(&mcp.Prompt{Name: "fire"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, fire
	}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, s, &mcp.Tool{Name: "zero", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Message: "code zero"}
	})
	ts := serveHTTP(t, httpHandler(t, s, nil))
	for _, tc := range []struct{ method, name, params string }{
		{"resources/read", "file:///fire", `"uri":"file:///fire"`},
		{"prompts/get", "fire", `"name":"fire"`},
		{"tools/call", "zero", `"name":"zero","arguments":{}`},
		{"completion/complete", "", `"ref":{"type":"ref/prompt","name":"fire"},"argument":{"name":"a","value":"b"}`},
	} {
		hs := header{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", tc.method}
		if tc.name != "" {
			hs = append(hs, "Mcp-Name", tc.name)
		}
		_, r, text := send(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":{`+tc.params+`,`+meta+`}}`, hs)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError {
			t.Errorf("%s: %s; want the error -32603", tc.method, text)
		}
	}
}
