package cassette_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/transport"
)

// brokenCassette ends its session with an error of the class it names.
func brokenCassette(class string) []byte {
	return []byte(`{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"docs"}
{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup"}}}
{"kind":"close","end":"error","error":"read: connection reset","class":"` + class + `"}
{"kind":"end"}
`)
}

// TestEndingClassNames: an ending's class is written as its
// transport.Class String, and read back; "broken", the name cassettes were
// written with before, reads as transport.ClassTransport, whose replayed
// error matches transport.ErrBroken; a class an ending cannot record, or
// no class at all, is refused.
func TestEndingClassNames(t *testing.T) {
	for _, name := range []string{"broken", "transport"} {
		t.Run(name, func(t *testing.T) {
			c, err := cassette.Parse("c.jsonl", brokenCassette(name))
			if err != nil {
				t.Fatal(err)
			}
			end := c.Interactions[len(c.Interactions)-1].Ending
			if end == nil || end.Class != transport.ClassTransport {
				t.Fatalf("ending %+v, want class transport", end)
			}
			data, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"class":"transport"`) {
				t.Errorf("written as:\n%s\nwant class transport", data)
			}
			f, err := cassette.Replay(c, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := f.Transport()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, _ := tr.Connect(ctx)
			defer conn.Close()
			conn.Write(ctx, mustRequest(`{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup"}}`))
			_, err = conn.Read(ctx)
			var rerr *cassette.RecordedError
			if !errors.As(err, &rerr) || !errors.Is(err, transport.ErrBroken) {
				t.Errorf("replayed Read error = %v, want a RecordedError matching transport.ErrBroken", err)
			}
		})
	}
	for _, name := range []string{"server", "mismatch", "cosmic"} {
		if _, err := cassette.Parse("c.jsonl", brokenCassette(name)); err == nil {
			t.Errorf("a cassette with ending class %q parsed", name)
		}
	}
}
