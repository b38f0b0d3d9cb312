package mcptest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/mcptest"
)

// A fake pinned to one revision serves it alone, in every mode: a client
// on the zero profile negotiates what the server serves (falling back to
// initialize from a server without server/discover, as the go-sdk does),
// a client pinned to the other revision is refused at connect, and
// nothing refused reaches a tool.
func TestPinnedRevision(t *testing.T) {
	mcptest.LeakCheck(t)
	modes := []struct {
		name  string
		start func(t testing.TB, rev string) *mcptest.Fake
	}{
		{"inprocess", func(t testing.TB, rev string) *mcptest.Fake {
			return mcptest.InProcess(t, &mcptest.InProcessOptions{Revision: rev})
		}},
		{"stdio", func(t testing.TB, rev string) *mcptest.Fake {
			return mcptest.Stdio(t, &mcptest.StdioOptions{Revision: rev})
		}},
		{"http", func(t testing.TB, rev string) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Revision: rev})
		}},
		{"http-stateless", func(t testing.TB, rev string) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{Revision: rev, Stateless: true})
		}},
	}
	for _, m := range modes {
		for _, rev := range []string{fakeserver.Revision20251125, fakeserver.Revision20260728} {
			for _, p := range []client.Profile{client.ProfileDefault, client.Profile20260728, client.Profile20251125} {
				t.Run(fmt.Sprintf("%s/serves %s/client %s", m.name, rev, p), func(t *testing.T) {
					fake := m.start(t, rev)
					def := fake.Definition()
					def.Profile = p
					ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
					defer cancel()
					c, err := client.Connect(ctx, def, nil)
					if ok := p == client.ProfileDefault || p.String() == rev; !ok {
						if err == nil {
							c.Close()
							t.Fatalf("a %s client connected to a fake that serves %s only, at %s", p, rev, c.ProtocolVersion())
						}
						if n := fake.Counts().Executions["lookup"]; n != 0 {
							t.Errorf("Executions = %d, want 0", n)
						}
						return
					}
					if err != nil {
						t.Fatalf("Connect: %v", err)
					}
					defer c.Close()
					if got := c.ProtocolVersion(); got != rev {
						t.Errorf("negotiated %s, want %s", got, rev)
					}
					if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "x"}); err != nil {
						t.Fatal(err)
					}
					if n := fake.Counts().Executions["lookup"]; n != 1 {
						t.Errorf("Executions = %d, want 1", n)
					}
				})
			}
		}
	}
}

// A 2026-07-28 request sent without server/discover to a fake that serves
// 2025-11-25 only is refused as that revision's server would (-32022,
// naming the revision it supports), and the tool does not run.
func TestPinnedRevisionRefusesCurrentRequests(t *testing.T) {
	mcptest.LeakCheck(t)
	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{Revision: fakeserver.Revision20251125, Stateless: true})
	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"x"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"}}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, fake.HTTP().URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "lookup"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"code":-32022`) || !strings.Contains(string(got), `"supported":["2025-11-25"]`) {
		t.Errorf("answer %s, want -32022 naming 2025-11-25", got)
	}
	if n := fake.Counts().Executions["lookup"]; n != 0 {
		t.Errorf("Executions = %d, want 0", n)
	}
}

// An unknown revision is an error, not a panic, wherever it is given.
func TestUnknownRevision(t *testing.T) {
	_, err := fakeserver.New(&fakeserver.Options{Revision: "2025-13-01"})
	if !errors.Is(err, fakeserver.ErrBadCatalog) || !strings.Contains(err.Error(), `unknown protocol revision "2025-13-01"`) {
		t.Errorf("New = %v, want ErrBadCatalog for an unknown protocol revision", err)
	}
	if code := fakeserver.Main([]string{"--revision", "latest"}); code != 2 {
		t.Errorf("Main(--revision latest) = %d, want 2", code)
	}
}

// ClientProfile pins the client a Fake hands out (Definition,
// Client) to a revision, in every mode: a fake that serves both is reached
// at the pinned one, and one that serves the other only refuses it.
func TestFakeClientPinsAProfile(t *testing.T) {
	for _, mode := range []struct {
		name  string
		start func(t testing.TB, p client.Profile, rev string) *mcptest.Fake
	}{
		{"inprocess", func(t testing.TB, p client.Profile, rev string) *mcptest.Fake {
			return mcptest.InProcess(t, &mcptest.InProcessOptions{ClientProfile: p, Revision: rev})
		}},
		{"stdio", func(t testing.TB, p client.Profile, rev string) *mcptest.Fake {
			return mcptest.Stdio(t, &mcptest.StdioOptions{ClientProfile: p, Revision: rev})
		}},
		{"http", func(t testing.TB, p client.Profile, rev string) *mcptest.Fake {
			return mcptest.HTTP(t, &mcptest.HTTPOptions{ClientProfile: p, Revision: rev})
		}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			mcptest.LeakCheck(t)
			for _, p := range []client.Profile{client.Profile20251125, client.Profile20260728} {
				c := mode.start(t, p, "").Client(nil)
				if got := c.ProtocolVersion(); got != p.ProtocolVersion() {
					t.Errorf("ClientProfile %s: the Fake's client negotiated %s", p, got)
				}
			}
			def := mode.start(t, client.Profile20260728, fakeserver.Revision20251125).Definition()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if c, err := client.Connect(ctx, def, nil); !errors.Is(err, client.ErrRevisionMismatch) {
				if err == nil {
					c.Close()
				}
				t.Errorf("a 2026-07-28 client of a 2025-11-25 fake: Connect = %v, want ErrRevisionMismatch", err)
			}
		})
	}
	t.Run("wrap", func(t *testing.T) {
		mcptest.LeakCheck(t)
		srv, err := fakeserver.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		c := mcptest.Wrap(t, srv.Server(), &mcptest.WrapOptions{ClientProfile: client.Profile20251125}).Client(nil)
		if got := c.ProtocolVersion(); got != "2025-11-25" {
			t.Errorf("the wrapped server's client negotiated %s, want 2025-11-25", got)
		}
		other, err := fakeserver.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		ch := mcptest.WrapHTTP(t, other.Server(), &mcptest.WrapHTTPOptions{ClientProfile: client.Profile20251125}).Client(nil)
		if got := ch.ProtocolVersion(); got != "2025-11-25" {
			t.Errorf("the wrapped server's client over HTTP negotiated %s, want 2025-11-25", got)
		}
	})
}
