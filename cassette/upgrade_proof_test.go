package cassette_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oldClientCassette is a session of this library's client recorded while it
// called itself "looprig-mcp v0.0.1", an older release than this one.
var oldClientCassette = filepath.Join("..", "testdata", "cassettes", "docs-client-v0.0.1.jsonl")

// oldClient is the identity that cassette was recorded with.
var oldClient = &mcp.Implementation{Name: "looprig-mcp", Version: "v0.0.1"}

// docsSession connects the client to f (as impl; nil for this release's
// identity), looks up one topic and closes.
func docsSession(t *testing.T, f *cassette.Factory, impl *mcp.Implementation) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f, Implementation: impl}, nil)
	if err != nil {
		return "", err
	}
	res, err := c.CallTool(ctx, "lookup", map[string]any{"query": "upgrade"})
	cerr := c.Close()
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, cerr
}

// TestUpgradedClientReplaysOldCassette: a committed cassette recorded by an
// older release of this library's client (another clientInfo.version)
// replays with this release, strictly: its identity is not matched.
func TestUpgradedClientReplaysOldCassette(t *testing.T) {
	leakcheck.Check(t)
	if *update {
		fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := cassette.Open(oldClientCassette, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := docsSession(t, f, oldClient); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(oldClientCassette)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"clientInfo":{"name":"looprig-mcp","version":"v0.0.1"}`) {
		t.Fatalf("%s was not recorded by looprig-mcp v0.0.1", oldClientCassette)
	}
	if client.DefaultImplementation().Version == oldClient.Version {
		t.Fatalf("this release is %s too: the test proves nothing", oldClient.Version)
	}
	f, err := cassette.Open(oldClientCassette, nil, &cassette.Options{Mode: cassette.ModeReplay})
	if err != nil {
		t.Fatal(err)
	}
	got, err := docsSession(t, f, nil)
	if err != nil {
		t.Fatalf("replaying with this release's client: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("replaying Close: %v", err)
	}
	if got != "docs: upgrade" {
		t.Errorf("lookup = %q, want the recorded \"docs: upgrade\"", got)
	}
}

// TestClientIdentityIgnoredNotCapabilities: what the client asks for
// (revision, capabilities) is still matched; only its identity is not.
func TestClientIdentityIgnoredNotCapabilities(t *testing.T) {
	leakcheck.Check(t)
	data, err := os.ReadFile(oldClientCassette)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"client name": {`"clientInfo":{"name":"looprig-mcp"`, `"clientInfo":{"name":"someone-else"`},
		"capability":  {`"capabilities":{}`, `"capabilities":{"experimental":{"x":{}}}`},
	} {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(string(data), edit[0]) {
				t.Fatalf("cassette lacks %q", edit[0])
			}
			c, err := cassette.Parse("edited.jsonl", []byte(strings.Replace(string(data), edit[0], edit[1], 1)))
			if err != nil {
				t.Fatal(err)
			}
			f, err := cassette.Replay(c, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = docsSession(t, f, nil)
			f.Close()
			var merr *cassette.MismatchError
			switch {
			case name == "client name" && err != nil:
				t.Errorf("another client name does not replay: %v", err)
			case name == "capability" && !errors.As(err, &merr):
				t.Errorf("other capabilities replay (err %v), want a *MismatchError at initialize", err)
			}
		})
	}
}
