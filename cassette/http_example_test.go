package cassette_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Record a Streamable HTTP session with a bearer token, then replay it with
// no server: the recorder sits below the credential round tripper, as
// streamablehttp.Options.Base, and redacts the token.
func ExampleRecordHTTP() {
	dir, _ := os.MkdirTemp("", "cassette-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "echo.jsonl")

	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	endpoint := hs.URL + "/mcp"

	token := auth.NewToken("s3cr3t")
	rec := cassette.RecordHTTP(endpoint, nil, path, &cassette.Options{Revealers: []cassette.Revealer{token}})
	f, err := streamablehttp.New(endpoint, &streamablehttp.Options{Base: rec, Credentials: auth.Bearer(token)})
	if err != nil {
		fmt.Println(err)
		return
	}
	live, err := callEcho(f, "hello")
	fmt.Println("live:", live, err)
	fmt.Println("recorded:", rec.Close())

	// Replay: the Player is a transport.Factory; no server is reached.
	hs.Close()
	p, err := cassette.Replay(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	replayed, err := callEcho(p, "hello")
	fmt.Println("replayed:", replayed, err)

	data, _ := os.ReadFile(path)
	header, _, _ := strings.Cut(string(data), "\n")
	fmt.Println(header)
	fmt.Println("token in file:", strings.Contains(string(data), "s3cr3t"))
	// Output:
	// live: hello <nil>
	// recorded: <nil>
	// replayed: hello <nil>
	// {"format":"mcprig-cassette","version":1,"transport":"streamablehttp","protocol":"2025-11-25","server":"echo"}
	// token in file: false
}

func ExampleOpenHTTP() {
	dir, _ := os.MkdirTemp("", "cassette-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "echo.jsonl")

	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, &mcp.ServerOptions{GetSessionID: func() string { return "session-1" }})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()

	// record-once: no cassette yet, so the live session is recorded, and
	// written when the client closes it.
	for _, run := range []string{"first", "second"} {
		f, err := cassette.OpenHTTP(path, hs.URL, nil, &cassette.Options{Mode: cassette.ModeRecordOnce})
		if err != nil {
			fmt.Println(err)
			return
		}
		text, err := callEcho(f, "hello")
		fmt.Printf("%s run: %T %s %v\n", run, f, text, err)
	}
	// Output:
	// first run: *cassette.HTTPRecorder hello <nil>
	// second run: *cassette.Player hello <nil>
}
