package oauthtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runTest runs test as go test runs a test function, for the examples
// below: with a real testing.TB (a benchmark's, run once), its cleanups,
// and its failures printed, so that a failure shows in the example's
// output. In your own code the function is a TestXxx.
func runTest(test func(t testing.TB)) {
	testing.Benchmark(func(b *testing.B) {
		test(exampleT{b})
		b.SkipNow() // one run: a benchmark would run its function again
	})
}

// exampleT prints a test's failures.
type exampleT struct{ testing.TB }

func (t exampleT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	t.TB.Fail()
}
func (t exampleT) Error(args ...any) {
	fmt.Println(append([]any{"FAIL:"}, args...)...)
	t.TB.Fail()
}
func (t exampleT) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.TB.FailNow() }
func (t exampleT) Fatal(args ...any)                 { t.Error(args...); t.TB.FailNow() }

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	return tc.Text
}

// A fake OAuth authorization server in front of a fake: the client, with
// only a client id and secret, discovers it from the server's 401, gets
// one token and calls.
func ExampleNewAuthServer() {
	runTest(func(t testing.TB) {
		as := oauthtest.NewAuthServer(t, nil)
		cc, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
			ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		})
		if err != nil {
			t.Fatal(err)
		}
		fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
			Auth:      &oauthtest.Protection{Server: as},
			Transport: &streamablehttp.Options{Credentials: cc},
		})
		c := fake.Client(nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "oauth"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(text(res))
		fmt.Printf("%+v\n", as.Counts())
	})
	// Output:
	// docs: oauth
	// {Registrations:0 Authorizations:0 TokensIssued:1 Refreshes:0 Refusals:0 ResourceRefusals:1 JWTBearerGrants:0 TokenExchanges:0 DPoPProofs:0 DPoPRefusals:0 NoncesIssued:0}
}

// A tool that needs a further scope: the first call is refused 403
// insufficient_scope, the credential steps up (a second token) but the
// call is not sent again, since it might have run; the caller calls
// again, and the tool runs once.
func ExampleProtection() {
	runTest(func(t testing.TB) {
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{Scopes: []string{"mcp", "docs:write"}})
		src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
			ClientID: oauthtest.DefaultClientID, ClientSecret: auth.NewSecret(oauthtest.DefaultClientSecret),
		})
		if err != nil {
			t.Fatal(err)
		}
		fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
			Auth:      &oauthtest.Protection{Server: as, Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"lookup": {"docs:write"}}},
			Transport: &streamablehttp.Options{Credentials: src},
		})
		c := fake.Client(nil)
		args := map[string]any{"query": "scopes"}
		_, err = c.CallTool(t.Context(), "lookup", args)
		fmt.Println("first call re-sent:", !errors.Is(err, streamablehttp.ErrReauthorized))
		res, err := c.CallTool(t.Context(), "lookup", args)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(text(res))
		fmt.Println("tokens issued:", as.Counts().TokensIssued, "executions:", fake.Counts().Executions["lookup"])
	})
	// Output:
	// first call re-sent: false
	// docs: scopes
	// tokens issued: 2 executions: 1
}

// Workload identity federation with DPoP, offline: the fake authorization
// server mints the CI job's token (as the CI's OIDC issuer would), takes
// it with the JWT-bearer grant, and binds the access token to the job's
// DPoP key; the protected fake checks a proof on every request.
func ExampleAuthServer_IDToken() {
	runTest(func(t testing.TB) {
		as := oauthtest.NewAuthServer(t, &oauthtest.AuthServerOptions{RequireDPoP: true})
		key, err := auth.NewDPoPKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{
			Token:      func(context.Context) (auth.Token, error) { return auth.NewToken(as.IDToken("ci-job", as.URL, 0)), nil },
			HTTPClient: key.Client(nil),
		})
		if err != nil {
			t.Fatal(err)
		}
		fake := mcptest.HTTP(t, &mcptest.HTTPOptions{
			Auth:      &oauthtest.Protection{Server: as},
			Transport: &streamablehttp.Options{Credentials: src},
		})
		c := fake.Client(nil)
		res, err := c.CallTool(t.Context(), "lookup", map[string]any{"query": "no secret"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(text(res))
		n := as.Counts()
		fmt.Println("jwt-bearer grants:", n.JWTBearerGrants, "tokens:", n.TokensIssued, "DPoP refusals:", n.DPoPRefusals)
	})
	// Output:
	// docs: no secret
	// jwt-bearer grants: 1 tokens: 1 DPoP refusals: 0
}
