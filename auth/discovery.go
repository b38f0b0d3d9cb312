package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// prmURL is a place protected resource metadata may be, and the resource
// it must name.
type prmURL struct{ url, resource string }

// prmURLs are the places to look for the server's protected resource
// metadata, in the order the MCP specification gives: the challenge's
// resource_metadata, then the well-known URIs at the endpoint's path and at
// the root.
func prmURLs(challenges []oauthex.Challenge, server *url.URL) []prmURL {
	resource := *server
	resource.RawQuery, resource.Fragment = "", ""
	var out []prmURL
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			out = append(out, prmURL{u, resource.String()})
			break
		}
	}
	at := resource
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(server.Path, "/")
	out = append(out, prmURL{at.String(), resource.String()})
	root := resource
	root.Path = "/.well-known/oauth-protected-resource"
	origin := resource
	origin.Path = ""
	out = append(out, prmURL{root.String(), origin.String()})
	return out
}

// challengeScopes returns the scope of a Bearer or DPoP challenge.
func challengeScopes(challenges []oauthex.Challenge) []string {
	for _, c := range challenges {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// checkTokenEndpoint refuses a discovered token endpoint that the secret or
// assertion would reach in the clear: plain http to a host that is not
// loopback, as the go-sdk's metadata checks refuse it (the metadata is
// fetched here, without them). The endpoint is the server's, not the
// caller's argument: its error does not match ErrInvalidArgument, which
// the HTTP transports classify as a configuration error.
func checkTokenEndpoint(u string) error {
	o, err := ParseOrigin(u)
	if err != nil {
		return fmt.Errorf("token endpoint: %v", err)
	}
	if o.Scheme != "https" && !o.IsLoopback() {
		return fmt.Errorf("token endpoint %s is neither https nor loopback", o)
	}
	return nil
}

// maxMetadataBytes bounds an authorization server's metadata document.
const maxMetadataBytes = 1 << 20

// authServerMetadata fetches the RFC 8414 metadata of issuer from the
// well-known URIs the MCP specification lists, and checks that it came
// from the issuer's origin and names issuer (RFC 8414 §3.3). hc must
// follow no redirect to another origin (see guardClient). It does not require PKCE, which the go-sdk's
// authorization code discovery does and the client credentials grant
// does not use.
func authServerMetadata(ctx context.Context, issuer string, hc *http.Client) (*oauthex.AuthServerMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	origin, err := OriginOf(u)
	if err != nil { // %v: a discovered issuer is not the caller's argument (see checkTokenEndpoint)
		return nil, fmt.Errorf("issuer %q: %v", issuer, err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	var candidates []string
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		c := *u
		c.Path = wk + path
		candidates = append(candidates, c.String())
	}
	if path != "" {
		c := *u
		c.Path = path + "/.well-known/openid-configuration"
		candidates = append(candidates, c.String())
	}
	for _, mu := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			continue // not here; try the next URI
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: status %d", mu, resp.StatusCode)
		}
		if len(data) > maxMetadataBytes {
			return nil, fmt.Errorf("%s: metadata larger than %d bytes", mu, maxMetadataBytes)
		}
		var m oauthex.AuthServerMeta
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", mu, err)
		}
		if !origin.Matches(resp.Request.URL) {
			// Not reached through CheckRedirect; a transport that follows
			// redirects itself could bring it.
			return nil, refused(RuleIssuer, "the metadata of %s came from %s", origin, originName(resp.Request.URL))
		}
		if !sameIssuer(m.Issuer, issuer) {
			return nil, refused(RuleIssuer, "%s names issuer %q, want %q", mu, m.Issuer, issuer)
		}
		return &m, nil
	}
	return nil, nil
}
