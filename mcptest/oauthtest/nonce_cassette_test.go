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

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// TestDPoPNonceSessionRecordsAndReplays records a session whose protected
// resource asks for a DPoP nonce (its first POST is refused 401
// use_dpop_nonce and sent again, with the same JSON-RPC id, with the
// nonce), and replays it with a key that has seen no nonce: the replay
// serves the 401, the client sends again, and every recorded request is
// used.
func TestDPoPNonceSessionRecordsAndReplays(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true})
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	key, _ := auth.NewDPoPKey(ec)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	src := clientCredentials(t, &auth.ClientCredentialsConfig{
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		TokenURL: as.URL + "/token", HTTPClient: key.Client(nil),
	})
	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
		Auth:      &oauthtest.Protection{Server: as},
		Transport: &streamablehttp.Options{Credentials: src, Base: tr},
	})
	path := filepath.Join(t.TempDir(), "dpop.jsonl")
	f, err := cassette.Open(path, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(t.Context(), client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "first"}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"status":401`)) || !bytes.Contains(data, []byte(`"Dpop-Nonce":["nonce-1"]`)) {
		t.Fatalf("the recording holds no refusal asking for a nonce: the test proves nothing:\n%s", data)
	}
	// A key that has seen no nonce, as in a fresh CI process: its
	// first proof carries none, as the recorded one did.
	ec2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	key2, _ := auth.NewDPoPKey(ec2)
	src2 := clientCredentials(t, &auth.ClientCredentialsConfig{
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		TokenURL: as.URL + "/token", HTTPClient: key2.Client(nil),
	})
	live2, err := streamablehttp.New(fake.HTTP().URL, &streamablehttp.Options{Credentials: src2, Base: tr})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cassette.Open(path, live2, &cassette.Options{Mode: cassette.ModeReplay})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := client.Connect(t.Context(), client.Definition{Name: "docs", Transport: r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := rc.CallTool(t.Context(), "lookup", map[string]any{"query": "first"}); err != nil || text(res) != "docs: first" {
		t.Fatalf("replayed call: %v, %v", res, err)
	}
	rc.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
