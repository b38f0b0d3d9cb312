package oauthtest_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// TestProtectedReplayNeedsNoServer: a session recorded from a protected
// server replays in CI with neither the MCP server nor its authorization
// server running, through a factory like the one that recorded it,
// credentials and all, as a CI job's: the credentials are not used in
// replay (no token asked for, the authorization server's counts
// unchanged), and a refusal the client recovered from while recording (the
// tokenless first request refused 401 and sent again with a token; a DPoP
// nonce asked for) is passed over: every line of the cassette is used.
func TestProtectedReplayNeedsNoServer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tokenURL bool // a token on the first request: no refusal recorded
		dpop     bool
		nonce    bool
	}{
		{"discovered from the 401", false, false, false},
		{"token URL", true, false, false},
		{"DPoP", true, true, false},
		{"DPoP nonce", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: tc.dpop, DPoPNonce: tc.nonce})
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			// creds is a CI job's: a new process, no token yet, a new
			// DPoP key.
			creds := func() auth.Source {
				cfg := auth.ClientCredentialsConfig{ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret)}
				if tc.tokenURL {
					cfg.TokenURL = as.URL + "/token"
				}
				if tc.dpop {
					ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
					key, err := auth.NewDPoPKey(ec)
					if err != nil {
						t.Fatal(err)
					}
					cfg.HTTPClient = key.Client(nil)
				}
				return clientCredentials(t, &cfg)
			}
			fake := mcptest.HTTP(t, &mcptest.HTTPOptions{Auth: &oauthtest.Protection{Server: as}})
			factory := func() transport.Factory {
				f, err := streamablehttp.New(fake.HTTP().URL, &streamablehttp.Options{Credentials: creds(), Base: tr})
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			path := filepath.Join(t.TempDir(), "protected.jsonl")
			call := func(mode cassette.Mode) string {
				f, err := cassette.Open(path, factory(), &cassette.Options{Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				c, err := client.Connect(t.Context(), client.Definition{Name: "docs", Transport: f}, nil)
				if err != nil {
					f.Close()
					t.Fatalf("%s: connect: %v", mode, err)
				}
				res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "first"})
				if err != nil {
					t.Fatalf("%s: call: %v", mode, err)
				}
				c.Close()
				if err := f.Close(); err != nil { // replay: every recorded line used
					t.Fatalf("%s: close: %v", mode, err)
				}
				return text(res)
			}
			live := call(cassette.ModeRecord)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if refused := bytes.Contains(data, []byte(`"status":401`)); refused == (tc.tokenURL && !tc.nonce) {
				t.Fatalf("the recording holds a 401: %v: the case proves nothing", refused)
			}
			recorded := as.Counts()
			fake.HTTP().Close()
			as.Close()
			if got := call(cassette.ModeReplay); got != live {
				t.Errorf("replayed %q, recorded %q", got, live)
			}
			if diff := cmp.Diff(recorded, as.Counts()); diff != "" {
				t.Errorf("the authorization server was asked in replay (-recorded +replayed):\n%s", diff)
			}
		})
	}
}
