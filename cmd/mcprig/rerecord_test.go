package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
)

// recordings is how many times TestRecordSameBytesEveryTime records one
// session: a timing race shows in a few of 20.
const recordings = 20

// TestRecordSameBytesEveryTime records one 2026-07-28 session through the
// recording stdio proxy many times: every file has the same bytes. The
// client's cancellation of its subscriptions/listen as it closes, and the
// server's answer to it when that comes before the proxy sees the end of
// the client's input, are the session's close, left out: the file ends
// with the client's close and the listen pending, every time.
func TestRecordSameBytesEveryTime(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	var first []byte
	for i := range recordings {
		path := filepath.Join(dir, fmt.Sprintf("docs-%02d.jsonl", i))
		f := mcprig(t, nil, "record", "-o", path, "--env", "GORACE", "--", self(t), "fakeserver")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20260728, Transport: f}, nil)
		cancel()
		if err != nil {
			t.Fatalf("recording %d: Connect: %v", i+1, err)
		}
		driveDocs(t, c)
		closeClient(t, c)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = data
			continue
		}
		if diff := cmp.Diff(string(first), string(data)); diff != "" {
			t.Fatalf("recording %d of %d differs from the first (-first +this):\n%s", i+1, recordings, diff)
		}
	}
}
