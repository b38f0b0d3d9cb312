package oauthtest_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// headerSpy is a base round tripper that keeps the credentials of every
// request it carries: what a cassette's recorder, right above it, sees.
type headerSpy struct {
	base   http.RoundTripper
	mu     sync.Mutex // guards proofs, tokens
	proofs []string
	tokens []string
}

func (s *headerSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	if p := r.Header.Get("DPoP"); p != "" {
		s.proofs = append(s.proofs, p)
	}
	if _, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok {
		s.tokens = append(s.tokens, tok)
	}
	s.mu.Unlock()
	return s.base.RoundTrip(r)
}

func (s *headerSpy) seen() (proofs, tokens []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.proofs...), append([]string(nil), s.tokens...)
}

// A recorded session with a DPoP-bound token holds no proof, no token and
// no trace of the key, in the bytes of the file: the recorder saw each
// proof and token in its request's headers, and saw a proof, the token and
// the printed key again in a call's arguments, which the server echoed in
// its result. The key itself cannot even be an argument: it refuses to
// be encoded.
func TestDPoPNeverInTheCassette(t *testing.T) {
	mcptest.LeakCheck(t)
	as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true})
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	key, err := auth.NewDPoPKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	spy := &headerSpy{base: tr}
	// With TokenURL the first request already carries a token
	// (TestDPoPNonceSessionRecordsAndReplays records one refused and
	// sent again).
	src := clientCredentials(t, &auth.ClientCredentialsConfig{
		ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		TokenURL: as.URL + "/token", HTTPClient: key.Client(nil),
	})
	fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
		Auth:      &oauthtest.Protection{Server: as},
		Transport: &streamablehttp.Options{Credentials: src, Base: spy},
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
	proofs, tokens := spy.seen()
	if len(proofs) == 0 || len(tokens) == 0 {
		t.Fatalf("the recorder saw %d proofs and %d tokens: the test proves nothing", len(proofs), len(tokens))
	}
	placed := proofs[0] + " " + tokens[0] + " " + fmt.Sprint(key)
	res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": placed})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(res); !strings.Contains(got, proofs[0]) {
		t.Fatalf("the server did not echo the proof: %q", got)
	}
	if _, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": key}); !errors.Is(err, auth.ErrNotMarshalable) {
		t.Errorf("a call with the key as an argument: %v, want ErrNotMarshalable", err)
	}
	c.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	proofs, tokens = spy.seen()
	checkNoCredentials(t, data, proofs, tokens, ec)

	// Its first call replays through the live factory's credentials: the
	// new proof and token, redacted alike, match the recorded
	// placeholders.
	r, err := cassette.Open(path, fake.Factory(), &cassette.Options{Mode: cassette.ModeReplay, AllowUnused: true})
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

// checkNoCredentials fails t if data, a cassette's bytes, holds any of
// proofs (or a proof's signature alone), tokens or the private key in any
// form, or lacks the redactions that stand in their place.
func checkNoCredentials(t *testing.T, data []byte, proofs, tokens []string, ec *ecdsa.PrivateKey) {
	t.Helper()
	for i, p := range proofs {
		if bytes.Contains(data, []byte(p)) || bytes.Contains(data, []byte(strings.Split(p, ".")[2])) {
			t.Errorf("the cassette holds proof %d", i)
		}
	}
	for _, tok := range tokens {
		if bytes.Contains(data, []byte(tok)) {
			t.Errorf("the cassette holds the token %q", tok)
		}
	}
	d, err := ec.Bytes() // the scalar at the curve's size, 32 bytes on P-256
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{new(big.Int).SetBytes(d).String(), fmt.Sprintf("%x", d), base64.RawURLEncoding.EncodeToString(d), base64.StdEncoding.EncodeToString(d)} {
		if bytes.Contains(data, []byte(form)) {
			t.Errorf("the cassette holds the private key (%s)", form)
		}
	}
	for _, want := range []string{`"Dpop":["REDACTED-`, `"Authorization":["DPoP REDACTED-`, "auth.DPoPKey(REDACTED)"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the cassette lacks %s", want)
		}
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("line %d is not JSON", i+1)
		}
	}
}
