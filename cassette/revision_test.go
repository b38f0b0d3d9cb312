package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
)

// TestRevisionRefusedNamesTheCassette: a session recorded at 2025-11-25
// (a default client fell back from server/discover) and replayed by a
// client pinned to 2026-07-28 fails at Connect with ErrRevisionMismatch
// naming the cassette, the line of the recorded answer to initialize, the
// cassette's revision and the client's profile; no server is named.
func TestRevisionRefusedNamesTheCassette(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs", Revision: fakeserver.Revision20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	hs, err := fake.StartHTTP("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	for name, live := range map[string]transport.Factory{"inprocess": fake.Factory(), "http": httpLive(t, hs.URL, nil)} {
		t.Run(name, func(t *testing.T) {
			path := tempPath(t, "old.jsonl")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rec := open(t, path, live, &cassette.Options{Mode: cassette.ModeRecord})
			c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: rec}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			line := 0
			for i, l := range bytes.Split(data, []byte("\n")) {
				if bytes.Contains(l, []byte(`"protocolVersion":"2025-11-25","serverInfo"`)) {
					line = i + 1
					break
				}
			}
			if line == 0 {
				t.Fatalf("the recording holds no answer to initialize at 2025-11-25:\n%s", data)
			}
			f := open(t, path, nil, &cassette.Options{AllowUnused: true})
			_, err = client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20260728, Transport: f}, nil)
			want := fmt.Sprintf("cassette %s:%d holds a session at protocol 2025-11-25; profile 2026-07-28 accepts 2026-07-28 only", path, line)
			if !errors.Is(err, client.ErrRevisionMismatch) || !strings.Contains(err.Error(), want) {
				t.Fatalf("Connect = %v\nwant ErrRevisionMismatch saying %q", err, want)
			}
			if strings.Contains(err.Error(), "server") {
				t.Errorf("Connect = %v, names a server where there is none", err)
			}
		})
	}
}

// TestPinnedRevisionRefusedNamesTheCassette: a session whose client was
// pinned to 2025-11-25 replays at that revision only; a client pinned to
// 2026-07-28 is refused before anything is sent, the error naming the
// cassette and the line of the recorded answer to initialize.
func TestPinnedRevisionRefusedNamesTheCassette(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	path := tempPath(t, "pinned.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := open(t, path, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: rec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, nil, &cassette.Options{AllowUnused: true})
	_, err = client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20260728, Transport: f}, nil)
	want := fmt.Sprintf("cassette %s:3 holds a session at protocol 2025-11-25 only, profile is 2026-07-28", path)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Connect = %v\nwant an error saying %q", err, want)
	}
	if us := f.Unused(); len(us) == 0 || us[0].Line != 2 {
		t.Errorf("Unused = %v, want every recorded request, from line 2: nothing was sent", us)
	}
}
