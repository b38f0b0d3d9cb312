// Command authserver serves the fake OAuth authorization server of
// mcptest/oauthtest (StartAuthServer) on a loopback port, so that the
// official MCP conformance suite's authorization-server scenarios
// (`conformance authorization`: the metadata endpoint, the authorization
// code grant) can test it as they would a real one.
//
//	authserver    # prints "listening at http://127.0.0.1:PORT", serves until SIGINT or SIGTERM
//
// It registers the fake's default confidential client
// (oauthtest.DefaultClientID, with oauthtest.DefaultClientSecret) and a public
// one, PublicClientID, without a secret; the redirect URIs of both may be
// any loopback http URI, the suite's callback among them. The suite's
// authorization-code-grant authenticates with "none" whenever the metadata
// lists it, as the fake's does, so scripts/conformance runs it with the
// public client: the fake refuses a confidential client that presents no
// secret, as it must. The authorization endpoint has no
// user: it redirects at once with a code. scripts/conformance starts it,
// plays the browser (it fetches the authorization URL the suite prints)
// and stops it.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/looprig/mcp/mcptest/oauthtest"
)

// PublicClientID is the public client the suite's runs use.
const PublicClientID = "conformance-public"

func main() {
	log.SetFlags(0)
	log.SetPrefix("conformance authserver: ")
	a, err := oauthtest.StartAuthServer(&oauthtest.AuthServerOptions{Clients: []oauthtest.AuthClient{
		{ID: oauthtest.DefaultClientID, Secret: oauthtest.DefaultClientSecret},
		{ID: PublicClientID},
	}})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening at %s (clients %s, %s)", a.URL, oauthtest.DefaultClientID, PublicClientID)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	if err := a.Close(); err != nil {
		log.Fatal(err)
	}
}
