package oauthtest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// rerecordings is how many times TestRerecordSameBytes records each
// session: a race of timing or of map order shows in a few of 20.
const rerecordings = 20

// A rerecordCell is one session of the re-recording table: a flow on a
// transport at a revision. live starts a new server (and authorization
// server) on new random ports and returns the factory to record.
type rerecordCell struct {
	flow, transport string
	profile         client.Profile
	live            func(t *testing.T) transport.Factory
}

// TestRerecordSameBytes records one session twenty times for every auth
// flow, transport and revision, each time against a new fake server and a
// new fake authorization server on new random ports, with new credentials
// and a new DPoP key: every recording of a cell has the same bytes. The
// table of distinct files is logged.
func TestRerecordSameBytes(t *testing.T) {
	mcptest.LeakCheck(t)
	cells := rerecordCells()
	var mu sync.Mutex
	distinct := map[string]int{}
	t.Cleanup(func() {
		var b strings.Builder
		fmt.Fprintf(&b, "distinct files of %d recordings:\n%-30s %-16s %-11s %s\n", rerecordings, "flow", "transport", "revision", "distinct")
		for _, c := range cells {
			fmt.Fprintf(&b, "%-30s %-16s %-11s %d\n", c.flow, c.transport, revisionOf(c), distinct[c.name()])
		}
		t.Log(b.String())
	})
	for _, c := range cells {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			files := map[string]int{}
			var first, other []byte
			dir := t.TempDir()
			for i := range rerecordings {
				data := recordOnce(t, filepath.Join(dir, fmt.Sprintf("%02d.jsonl", i)), c)
				files[string(data)]++
				if first == nil {
					first = data
				} else if other == nil && string(data) != string(first) {
					other = data
				}
			}
			mu.Lock()
			distinct[c.name()] = len(files)
			mu.Unlock()
			if other != nil {
				t.Errorf("%d distinct files of %d recordings; the first and another differ (-first +other):\n%s", len(files), rerecordings, cmp.Diff(string(first), string(other)))
			}
		})
	}
}

func (c rerecordCell) name() string { return c.flow + "/" + c.transport + "/" + revisionOf(c) }

func revisionOf(c rerecordCell) string {
	if c.transport == "sse" {
		return "2024-11-05"
	}
	return c.profile.ProtocolVersion()
}

// recordOnce records one session of cell c at path: connect, one call of
// lookup, close. It returns the cassette's bytes.
func recordOnce(t *testing.T, path string, c rerecordCell) []byte {
	t.Helper()
	f, err := cassette.Open(path, c.live(t), &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: c.profile, Transport: f}, nil)
	if err != nil {
		f.Discard()
		t.Fatalf("connect: %v", err)
	}
	if _, err := cl.CallTool(ctx, "lookup", map[string]any{"query": "same"}); err != nil {
		t.Errorf("call: %v", err)
	}
	cl.Close()
	if err := f.Close(); err != nil {
		t.Fatalf("recording: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// rerecordCells is the table: every transport without auth, and every auth
// flow over Streamable HTTP, at both revisions; legacy SSE, which speaks
// 2024-11-05 only and runs no authorization flow, with the flows that need
// no 401 to start.
func rerecordCells() []rerecordCell {
	profiles := []client.Profile{client.Profile20251125, client.Profile20260728}
	var cells []rerecordCell
	for _, p := range profiles {
		cells = append(cells,
			rerecordCell{flow: "none", transport: "stdio", profile: p, live: func(t *testing.T) transport.Factory {
				return mcptest.Stdio(t, &mcptest.StdioOptions{ClientProfile: p}).Factory()
			}},
			rerecordCell{flow: "none", transport: "inprocess", profile: p, live: func(t *testing.T) transport.Factory {
				return mcptest.InProcess(t, &mcptest.InProcessOptions{ClientProfile: p}).Factory()
			}},
		)
		for _, fl := range authFlows() {
			cells = append(cells, rerecordCell{flow: fl.name, transport: "streamablehttp", profile: p, live: func(t *testing.T) transport.Factory {
				return protectedHTTP(t, p, fl)
			}})
		}
	}
	for _, fl := range authFlows() {
		if fl.sse {
			cells = append(cells, rerecordCell{flow: fl.name, transport: "sse", live: func(t *testing.T) transport.Factory { return sseLive(t, fl) }})
		}
	}
	return cells
}

// An authFlow makes the credentials of one recording: new ones each time,
// as a new process would have.
type authFlow struct {
	name string
	sse  bool // it needs no 401 to start (legacy SSE runs no authorization flow)
	as   *oauthtest.AuthServerOptions
	// creds returns the client's credential source for a server protected
	// by as (whose issuer trusts idp, when the flow has one).
	creds func(t *testing.T, as, idp *oauthtest.AuthServer) auth.Source
}

func authFlows() []authFlow {
	cc := func(t *testing.T, as *oauthtest.AuthServer, key *auth.DPoPKey) auth.Source { // key: nil for none
		cfg := &auth.ClientCredentialsConfig{ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret), TokenURL: as.URL + "/token"}
		if key != nil {
			cfg.HTTPClient = key.Client(nil)
		}
		return clientCredentials(t, cfg)
	}
	return []authFlow{
		{name: "none", sse: true, creds: nil},
		{name: "bearer", sse: true, creds: func(t *testing.T, as, _ *oauthtest.AuthServer) auth.Source {
			req, _ := http.NewRequest(http.MethodPost, as.URL, nil)
			tok, err := cc(t, as, nil).Credential(testkit.Context(t), req)
			if err != nil {
				t.Fatal(err)
			}
			return auth.Bearer(tok)
		}},
		{name: "authorization-code", creds: func(t *testing.T, _, _ *oauthtest.AuthServer) auth.Source {
			src, err := auth.NewAuthorizationCode(&sdkauth.AuthorizationCodeHandlerConfig{
				DynamicClientRegistrationConfig: &sdkauth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
					RedirectURIs: []string{"http://127.0.0.1/callback"},
				}},
				RedirectURL:              "http://127.0.0.1/callback",
				AuthorizationCodeFetcher: oauthtest.FetchAuthorizationCode,
			})
			if err != nil {
				t.Fatal(err)
			}
			return src
		}},
		{name: "client-credentials", creds: func(t *testing.T, as, _ *oauthtest.AuthServer) auth.Source {
			return clientCredentials(t, nil)
		}},
		{name: "client-credentials-token-url", sse: true, creds: func(t *testing.T, as, _ *oauthtest.AuthServer) auth.Source {
			return cc(t, as, nil)
		}},
		{name: "dpop-nonce", as: &oauthtest.AuthServerOptions{RequireDPoP: true, DPoPNonce: true},
			creds: func(t *testing.T, as, _ *oauthtest.AuthServer) auth.Source {
				ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				if err != nil {
					t.Fatal(err)
				}
				key, err := auth.NewDPoPKey(ec)
				if err != nil {
					t.Fatal(err)
				}
				return cc(t, as, &key)
			}},
		{name: "workload-identity", creds: func(t *testing.T, as, _ *oauthtest.AuthServer) auth.Source {
			return workloadIdentity(t, &auth.WorkloadIdentityConfig{
				Token: func(context.Context) (auth.Token, error) { return auth.NewToken(as.IDToken("ci-job", as.URL, 0)), nil },
			})
		}},
		{name: "enterprise-managed", creds: func(t *testing.T, as, idp *oauthtest.AuthServer) auth.Source {
			src, err := auth.NewEnterprise(&auth.EnterpriseConfig{
				IDToken: func(context.Context) (auth.Token, error) {
					return auth.NewToken(idp.IDToken("alice", oauthtest.DefaultClientID, 0)), nil
				},
				IdPIssuer: idp.URL, IdPClientID: oauthtest.DefaultClientID, IdPClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
				ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
			})
			if err != nil {
				t.Fatal(err)
			}
			return src
		}},
	}
}

// protectedHTTP starts the docs fake over Streamable HTTP, protected by a
// new fake authorization server as flow fl asks (unprotected for "none"),
// and returns the factory of a client at profile p with fl's credentials.
func protectedHTTP(t *testing.T, p client.Profile, fl authFlow) transport.Factory {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	o := &mcptest.HTTPOptions{ClientProfile: p, Transport: &streamablehttp.Options{Base: tr}}
	if fl.creds != nil {
		var idp *oauthtest.AuthServer
		aso := fl.as
		if fl.name == "enterprise-managed" {
			idp = oauthtest.NewAuthServer(t, nil)
			aso = &oauthtest.AuthServerOptions{Trust: []*oauthtest.AuthServer{idp}}
		}
		as := oauthtest.NewAuthServer(t, aso)
		o.Auth = &oauthtest.Protection{Server: as}
		o.Transport.Credentials = fl.creds(t, as, idp)
	}
	return mcptest.HTTP(t, o).Factory()
}

// sseLive starts the docs fake over legacy SSE, protected by a new fake
// authorization server as flow fl asks (unprotected for "none"), and
// returns the factory of a client with fl's credentials.
func sseLive(t *testing.T, fl authFlow) transport.Factory {
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogDocs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	ho := &fakeserver.HTTPOptions{SSE: true}
	so := &sse.Options{}
	if fl.creds != nil {
		as := oauthtest.NewAuthServer(t, fl.as)
		p := &oauthtest.Protection{Server: as}
		ho.Wrap = func(next http.Handler) http.Handler { return as.Protect(next, p) }
		so.Credentials = fl.creds(t, as, nil)
	}
	hs, err := fake.StartHTTP("127.0.0.1:0", ho)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	f, err := sse.New(hs.URL, so)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
