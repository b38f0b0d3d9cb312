package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
)

// withRefusedCall writes a copy of the Streamable HTTP cassette at path in
// which the tools/call was first refused 401 for want of a DPoP nonce and
// then sent again, id unchanged, as a client with DPoP credentials
// records a server that asks for a nonce mid-session, and returns the
// copy's path.
func withRefusedCall(t *testing.T, path string) string {
	t.Helper()
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(c.Interactions, func(in cassette.Interaction) bool {
		return in.Kind == cassette.KindRequest && bytes.Contains(in.Message, []byte(`"method":"tools/call"`))
	})
	if i < 0 {
		t.Fatalf("%s holds no tools/call", path)
	}
	s := c.Interactions[i].HTTP.Stream
	refused := c.Interactions[i]
	h := *refused.HTTP
	refused.HTTP = &h
	refusal := cassette.Interaction{Kind: cassette.KindResponse, HTTP: &cassette.HTTP{Stream: s, Status: http.StatusUnauthorized,
		Headers: http.Header{"Www-Authenticate": {`DPoP error="use_dpop_nonce"`}, "Dpop-Nonce": {"nonce-1"}}}}
	for k := i; k < len(c.Interactions); k++ {
		if h := c.Interactions[k].HTTP; h != nil && h.Stream >= s {
			h.Stream++ // the streams after it are numbered one more
		}
	}
	c.Interactions = slices.Insert(c.Interactions, i, refused, refusal)
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte(`"method":"tools/call"`)) != 2 || !bytes.Contains(data, []byte(`"status":401`)) {
		t.Fatalf("the edited cassette does not hold the call refused and sent again:\n%s", data)
	}
	out := filepath.Join(t.TempDir(), "refused-"+filepath.Base(path))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// mcprig verify of a Streamable HTTP cassette whose tools/call was refused
// 401 for a DPoP nonce and sent again sends the call once: the fake over
// HTTP (--upstream) runs lookup once, and neither it nor the fake as a
// stdio child drifts.
func TestVerifyRecoveredRefusal(t *testing.T) {
	leakcheck.Check(t)
	for _, k := range []sessionKind{{"http", "2025-11-25"}, {"stateless", "2026-07-28"}} {
		t.Run(k.name(), func(t *testing.T) {
			path := withRefusedCall(t, k.path())
			fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs"})
			if err != nil {
				t.Fatal(err)
			}
			defer fake.Close()
			upstream := startDocsHTTP(t, fake, k.transport == "stateless")
			for _, live := range [][]string{{"--upstream", upstream}, {"--", self(t), "fakeserver", "--catalog", "docs"}} {
				args := append([]string{"verify", "--timeout", verifyTimeout, "--env", "GORACE=" + noExitSleep, path}, live...)
				code, stdout, stderr := runMcprig(args...)
				if code != 0 || !strings.Contains(stdout, "no drift") {
					t.Errorf("mcprig %s: exit %d, want 0 and no drift\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
			}
			if n := fake.Counts().Executions["lookup"]; n != 1 {
				t.Errorf("the fake over HTTP ran lookup %d times, want 1", n)
			}
		})
	}
}
