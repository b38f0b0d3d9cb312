package auth_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// TestGoSDKUnderTheSameAttacks measures what the go-sdk's own OAuth
// handlers, used without this package's door (auth.NewOAuth wraps a
// handler and leaves its client alone), do under some attacks of
// TestHostileAuthorizationServerMatrix. It reports and asserts nothing:
// set LOOPRIG_COMPARE_GOSDK=1 to run it, and -v to see its table.
func TestGoSDKUnderTheSameAttacks(t *testing.T) {
	if os.Getenv("LOOPRIG_COMPARE_GOSDK") == "" {
		t.Skip("set LOOPRIG_COMPARE_GOSDK=1 to measure the go-sdk's handlers")
	}
	leakcheck.Check(t)
	type handler struct {
		name string
		make func(r *asRig) sdkauth.OAuthHandler
	}
	handlers := []handler{
		{"go-sdk AuthorizationCodeHandler, default client", func(r *asRig) sdkauth.OAuthHandler {
			h, err := sdkauth.NewAuthorizationCodeHandler(&sdkauth.AuthorizationCodeHandlerConfig{
				PreregisteredClient: &oauthex.ClientCredentials{ClientID: ccClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: ccSecret}},
				RedirectURL:         "http://localhost:1/callback",
				AuthorizationCodeFetcher: func(_ context.Context, a *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
					u, _ := url.Parse(a.URL)
					return &sdkauth.AuthorizationResult{Code: "code-1", State: u.Query().Get("state")}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}},
		{"go-sdk extauth.ClientCredentialsHandler, default client", func(r *asRig) sdkauth.OAuthHandler {
			h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
				Credentials: &oauthex.ClientCredentials{ClientID: ccClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: ccSecret}},
			})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}},
	}
	var b strings.Builder
	b.WriteString("| handler | attack | requests at evil | credentials at evil | evil token at the MCP server | error |\n|---|---|---|---|---|---|\n")
	for _, h := range handlers {
		for _, status := range []int{302, 307, 308} {
			for _, where := range []string{"same host, other port", "other host"} {
				t.Run(fmt.Sprintf("%s/token %d to %s", h.name, status, where), func(t *testing.T) {
					r := newASRig(t)
					r.route("/token", redirect(status, r.target(where)))
					err := r.drive(testkit.Context(t), auth.NewOAuth(h.make(r)))
					n, c := r.evil.counts()
					fmt.Fprintf(&b, "| %s | token endpoint %d to %s | %d | %d | %v | %.90v |\n", h.name, status, where, n, c, r.mcp.saw(evilToken), err)
				})
			}
		}
		t.Run(h.name+"/metadata 302 to another origin", func(t *testing.T) {
			r := newASRig(t)
			r.route("/.well-known/oauth-authorization-server", redirect(302, "http://localhost:"+r.evil.port()+"/.well-known/oauth-authorization-server"))
			err := r.drive(testkit.Context(t), auth.NewOAuth(h.make(r)))
			n, c := r.evil.counts()
			fmt.Fprintf(&b, "| %s | metadata 302 to another origin | %d | %d | %v | %.90v |\n", h.name, n, c, r.mcp.saw(evilToken), err)
		})
	}
	t.Logf("the go-sdk's handlers under the same attacks:\n%s", b.String())
}
