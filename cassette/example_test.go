package cassette_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// docsServer is a server with one tool, lookup.
func docsServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Q string `json:"q"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + in.Q}}}, nil, nil
	})
	return s
}

// lookup connects through f, calls lookup, closes, and closes f.
func lookup(f *cassette.Factory) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broken replay fails, not hangs
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		return "", err
	}
	res, err := c.CallTool(ctx, "lookup", map[string]any{"q": "cassettes"})
	c.Close()
	if err := f.Close(); err != nil {
		return "", err
	}
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// Open records a session when there is no cassette yet (ModeRecordOnce,
// what ModeFromEnv gives a developer), and replays it afterwards, with no
// server.
func Example() {
	dir, _ := os.MkdirTemp("", "cassette")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "docs.jsonl")
	live := inprocess.New(docsServer()) // stdio.New(...), streamablehttp.New(...): any transport
	for range 2 {
		f, err := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecordOnce})
		if err != nil {
			fmt.Println(err)
			return
		}
		mode := f.Mode()
		text, err := lookup(f)
		fmt.Println(mode, text, err)
	}
	// Output:
	// record found cassettes <nil>
	// replay found cassettes <nil>
}

// A Streamable HTTP session is recorded through the live factory's base
// round tripper, stateful or stateless, and replayed with the server gone.
func ExampleOpen_streamableHTTP() {
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return docsServer() },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	dir, _ := os.MkdirTemp("", "cassette")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "docs.jsonl")
	live, _ := streamablehttp.New(srv.URL+"/mcp", nil)

	f, _ := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecord})
	fmt.Println(lookup(f))
	srv.Close()

	f, _ = cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeReplay})
	fmt.Println(lookup(f))
	// Output:
	// found cassettes <nil>
	// found cassettes <nil>
}

// A cassette built in code is plain data, and replays as a loaded one
// does.
func ExampleReplay() {
	msg := func(from, m string) cassette.Interaction {
		return cassette.Interaction{Kind: cassette.KindMessage, From: from, Message: json.RawMessage(m)}
	}
	c := &cassette.Cassette{
		File:   "built-in-code",
		Header: cassette.Header{Format: cassette.FormatName, Version: cassette.Version, Transport: "stdio", Protocol: "2025-11-25", Server: "echo"},
		Interactions: []cassette.Interaction{
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"example","version":"v1"}}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"v1"}}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`),
			msg(cassette.FromClient, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`),
			msg(cassette.FromServer, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`),
			{Kind: cassette.KindClose, Ending: &cassette.Ending{End: cassette.EndClient}},
		},
	}
	f, err := cassette.Replay(c, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, _ := f.Transport()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broken replay fails, not hangs
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	cs.Close()
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, err, f.Close())
	// Output: hi <nil> <nil>
}

// How a session ended is replayed: a server that exited in the middle of
// a call fails that call again, at once, with the recorded exit status.
func ExampleRecordedError() {
	c, _ := cassette.Parse("crashed.jsonl", []byte(`{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup"}}}
{"kind":"close","end":"eof","exit":{"code":3},"stderr":"boom\n"}
{"kind":"end"}
`))
	f, _ := cassette.Replay(c, nil, nil)
	tr, _ := f.Transport()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broken replay fails, not hangs
	defer cancel()
	conn, _ := tr.Connect(ctx)
	conn.Write(ctx, mustRequest(`{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup"}}`))
	_, err := conn.Read(ctx)
	fmt.Println(err)
	fmt.Print(conn.(transport.Diagnoser).Diagnose())
	// Output:
	// EOF
	// exit status 3; stderr tail:
	// boom
}

// An option the cassette's transport cannot use is an error, not ignored.
func ExampleOpen_invalidOptions() {
	_, err := cassette.Open("testdata/counter.jsonl", nil, &cassette.Options{RedactHeaders: []string{"X-Api-Key"}})
	fmt.Println(err)
	var oerr *cassette.OptionsError
	fmt.Println(errors.As(err, &oerr), errors.Is(err, cassette.ErrInvalidOptions), oerr.Option)
	// Output:
	// cassette.Open: RedactHeaders: does not apply to this transport (inprocess)
	// true true RedactHeaders
}
