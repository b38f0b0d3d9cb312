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
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
)

// recordings is how many times TestRecordSameBytesEveryTime records one
// session: a timing race shows in a few of 20.
const recordings = 20

// TestRecordSameBytesEveryTime records one 2026-07-28 session through the
// recording stdio proxy many times, and through the recording HTTP proxy
// before a stateless server as many: every file has the same bytes. The
// client's cancellation of its subscriptions/listen as it closes, and the
// server's answer to it when that comes before the proxy sees the end of
// the client's input, are the session's close, left out: the stdio file
// ends with the client's close and the listen pending, every time.
func TestRecordSameBytesEveryTime(t *testing.T) {
	leakcheck.Check(t)
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		sameEveryTime(t, func(path string) {
			f := mcprig(t, nil, "record", "-o", path, "--env", "GORACE", "--", self(t), "fakeserver")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20260728, Transport: f}, nil)
			cancel()
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			driveDocs(t, c)
			closeClient(t, c)
		})
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		fake, err := fakeserver.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		upstream := startDocsHTTP(t, fake, true)
		sameEveryTime(t, func(path string) {
			rec := serveMcprig(t, nil, "record", "-o", path, "--upstream", upstream)
			driveHTTPAt(t, rec.url, client.Profile20260728)
			if code := rec.wait(t); code != 0 {
				t.Fatalf("mcprig record exited %d\nstderr:\n%s", code, rec.stderr)
			}
		})
	})
}

// sameEveryTime records a session recordings times (record writes it to
// path) and fails t at the first file that differs from the first.
func sameEveryTime(t *testing.T, record func(path string)) {
	dir := t.TempDir()
	var first []byte
	for i := range recordings {
		path := filepath.Join(dir, fmt.Sprintf("docs-%02d.jsonl", i))
		record(path)
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
