package fakeserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// A fake server over Streamable HTTP whose first lookup stream drops after
// its first event: on protocol 2025-11-25 the client resumes it with
// Last-Event-ID and reads the reply, the tool ran once, and Close sent the
// protocol DELETE.
func ExampleServer_StartHTTP() {
	fs, err := fakeserver.New(&fakeserver.Options{
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	hs, err := fs.StartHTTP("", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer hs.Close()
	f, err := streamablehttp.New(hs.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "resume"}); err != nil {
		log.Fatal(err)
	}
	if err := c.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("executions:", fs.Counts().Executions["lookup"])
	for _, r := range hs.Requests() {
		switch {
		case r.Method == http.MethodGet && r.LastEventID != "":
			fmt.Println("resumed after the event the fake sent last:", r.LastEventID == lastSent(hs.Requests(), "tools/call"))
		case r.Method == http.MethodDelete:
			fmt.Println(r)
		}
	}
	n, auths := hs.OtherCounts()
	fmt.Println("other origin:", n, "requests,", auths, "credentials")
	// Output:
	// executions: 1
	// resumed after the event the fake sent last: true
	// DELETE session=fake-1 status=204
	// other origin: 0 requests, 0 credentials
}

// lastSent returns the last event id the fake sent on the response to the
// first POST of method.
func lastSent(rs []fakeserver.Request, method string) string {
	for _, r := range rs {
		if r.RPC == method {
			return r.SentEventID
		}
	}
	return ""
}
