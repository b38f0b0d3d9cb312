package oauthtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/looprig/mcp/internal/dpop"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// A Protection makes a fake served over HTTP a protected resource of a
// fake authorization server. Give it as mcptest.HTTPOptions.Auth or
// mcptest.WrapHTTPOptions.Auth; see [AuthServer.Protect].
type Protection struct {
	// Server issues the tokens the resource accepts. Required.
	Server *AuthServer
	// Scopes are needed by every request; empty means none (any valid
	// token).
	Scopes []string
	// ToolScopes are needed, besides Scopes, by a tools/call of the tool:
	// a token without them gets 403 insufficient_scope naming every scope
	// the call needs, for the client to step up.
	ToolScopes map[string][]string
}

// Protect returns next behind p.Server's resource server ([AuthServer.Protect]).
// It is how mcptest serves a fake behind p (mcptest.Protector).
func (p *Protection) Protect(next http.Handler) (http.Handler, error) {
	if p == nil || p.Server == nil {
		return nil, errNoServer
	}
	return p.Server.Protect(next, p), nil
}

// errNoServer is a Protection without its Server.
var errNoServer = errors.New("oauthtest: Protection has no Server")

const prmPath = "/.well-known/oauth-protected-resource"

// Protect returns next behind a resource server that accepts the tokens a
// issued. The resource server:
//   - serves its protected resource metadata (RFC 9728) at
//     /.well-known/oauth-protected-resource, and at that path followed by
//     the endpoint's (/.well-known/oauth-protected-resource/mcp). The
//     metadata names a as its authorization server.
//   - answers a request without a token 401, with a WWW-Authenticate
//     challenge that points at the metadata. That is a Bearer challenge,
//     and a DPoP one when a asks for DPoP.
//   - answers 401 invalid_token to an unknown or expired token, or one
//     issued for another resource.
//   - answers 403 insufficient_scope to a token without the scopes p asks
//     for.
//
// A DPoP-bound token must come as "Authorization: DPoP …" with a valid
// proof of its key in the DPoP header. The proof has htm, htu, iat, ath, a
// jti not seen before, and the nonce if a asks for nonces. Sent as Bearer,
// or without a valid proof, the token is refused 401 with a DPoP
// challenge: invalid_token, invalid_dpop_proof, or use_dpop_nonce with a
// DPoP-Nonce header. A bearer token sent with the DPoP scheme is refused
// too.
//
// p.Server must be a (or nil). Each 401 and 403 counts in
// AuthCounts.ResourceRefusals.
func (a *AuthServer) Protect(next http.Handler, p *Protection) http.Handler {
	var o Protection
	if p != nil {
		o = *p
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		if path, ok := strings.CutPrefix(r.URL.Path, prmPath); ok {
			a.resourceMetadata(w, base, path, o.Scopes)
			return
		}
		ch := a.challenges(base, r, &o)
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if tok == "" || !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "DPoP") {
			a.refuseResource(w, http.StatusUnauthorized, ch.all(""))
			return
		}
		g := a.lookup(tok)
		switch {
		case a.opts.Loop401, g == nil, time.Now().After(g.expires), g.resource != "" && g.resource != base+r.URL.Path:
			a.refuseResource(w, http.StatusUnauthorized, ch.as(scheme, `error="invalid_token"`))
			return
		case g.jkt == "" && strings.EqualFold(scheme, "DPoP"):
			a.refuseResource(w, http.StatusUnauthorized, ch.as("DPoP", `error="invalid_token", error_description="not a DPoP-bound token"`))
			return
		case g.jkt != "":
			if perr := a.resourceProof(r, scheme, tok, g); perr != nil {
				if perr.code == "use_dpop_nonce" {
					w.Header().Set("DPoP-Nonce", a.currentNonce())
				}
				a.refuseResource(w, http.StatusUnauthorized, ch.as("DPoP", fmt.Sprintf("error=%q, error_description=%q", perr.code, perr.why)))
				return
			}
		}
		if !hasAll(g.scopes, ch.need) {
			a.refuseResource(w, http.StatusForbidden, ch.as(scheme, `error="insufficient_scope"`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// challenges are the WWW-Authenticate challenges of one request.
type challenges struct {
	params string   // resource_metadata and scope
	need   []string // the scopes the request needs
	dpop   bool     // offer the DPoP scheme too
}

func (a *AuthServer) challenges(base string, r *http.Request, o *Protection) *challenges {
	c := &challenges{params: fmt.Sprintf(`resource_metadata=%q`, base+prmPath+r.URL.Path), dpop: a.usesDPoP()}
	c.need = slices.Clone(o.Scopes)
	if tool := calledTool(r); tool != "" {
		c.need = append(c.need, o.ToolScopes[tool]...)
	}
	slices.Sort(c.need)
	c.need = slices.Compact(c.need)
	if len(c.need) > 0 {
		c.params += fmt.Sprintf(`, scope=%q`, strings.Join(c.need, " "))
	}
	return c
}

// all returns the challenges for a request without a token, with extra
// parameters: Bearer, and DPoP when the server asks for it.
func (c *challenges) all(extra string) []string {
	out := []string{c.as("Bearer", extra)[0]}
	if c.dpop {
		out = append(out, c.as("DPoP", extra)[0])
	}
	return out
}

// as returns the challenge of one scheme (Bearer or DPoP, as the client
// used it), with extra parameters.
func (c *challenges) as(scheme, extra string) []string {
	s := "Bearer " + c.params
	if strings.EqualFold(scheme, "DPoP") {
		s = fmt.Sprintf("DPoP algs=%q, %s", strings.Join(dpop.Algorithms, " "), c.params)
	}
	if extra != "" {
		s += ", " + extra
	}
	return []string{s}
}

func (a *AuthServer) resourceMetadata(w http.ResponseWriter, base, path string, scopes []string) {
	if len(scopes) == 0 {
		scopes = a.opts.Scopes
	}
	writeJSON(w, http.StatusOK, &oauthex.ProtectedResourceMetadata{
		Resource:               base + path,
		AuthorizationServers:   []string{a.URL},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
	})
}

func (a *AuthServer) lookup(tok string) *grant {
	a.mu.Lock()
	defer a.mu.Unlock()
	if g := a.tokens[tok]; g != nil {
		c := *g
		return &c
	}
	return nil
}

func (a *AuthServer) refuseResource(w http.ResponseWriter, status int, challenges []string) {
	a.count(func(c *AuthCounts) { c.ResourceRefusals++ })
	for _, ch := range challenges {
		w.Header().Add("WWW-Authenticate", ch)
	}
	http.Error(w, http.StatusText(status), status)
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

// calledTool returns the tool a POST's tools/call names, leaving the body
// whole for the protocol.
func calledTool(r *http.Request) string {
	if r.Method != http.MethodPost || r.Body == nil {
		return ""
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return ""
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	return msg.Params.Name
}

// FetchAuthorizationCode is a go-sdk AuthorizationCodeFetcher for an
// authorization server that redirects at once, without a user, as a fake
// [AuthServer] does. It requests the authorization URL and does not follow
// the redirect. It returns the code, state and iss of its Location, or the
// error it carries. Give it to
// auth.AuthorizationCodeHandlerConfig.AuthorizationCodeFetcher.
func FetchAuthorizationCode(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("oauthtest: authorization: %w", err)
	}
	hc := &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauthtest: authorization: %w", err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("oauthtest: authorization: status %d and no redirect", resp.StatusCode)
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("oauthtest: authorization refused: %s: %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return nil, errors.New("oauthtest: authorization: the redirect carries no code")
	}
	return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

var _ sdkauth.AuthorizationCodeFetcher = FetchAuthorizationCode

// discardLogger silences an http.Server's own log.
var discardLogger = log.New(io.Discard, "", 0)
