package mcptest

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

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// A Protection makes a fake served over HTTP a protected resource of a
// fake authorization server (FakeOptions.Auth, [AuthServer.Protect]).
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

const prmPath = "/.well-known/oauth-protected-resource"

// Protect returns next behind a resource server that accepts the tokens a
// issued: it serves its protected resource metadata (RFC 9728) at
// /.well-known/oauth-protected-resource and at that path followed by the
// endpoint's (/.well-known/oauth-protected-resource/mcp), naming a as its
// authorization server; it answers a request without a token 401 with a
// WWW-Authenticate challenge that points at the metadata; an unknown or
// expired token, or one issued for another resource, 401 invalid_token;
// and a token without the scopes p asks for 403 insufficient_scope.
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
		resource := base + r.URL.Path
		challenge := fmt.Sprintf(`Bearer resource_metadata=%q`, base+prmPath+r.URL.Path)
		need := slices.Clone(o.Scopes)
		if tool := calledTool(r); tool != "" {
			need = append(need, o.ToolScopes[tool]...)
		}
		slices.Sort(need)
		need = slices.Compact(need)
		if len(need) > 0 {
			challenge += fmt.Sprintf(`, scope=%q`, strings.Join(need, " "))
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tok == "" {
			a.refuseResource(w, http.StatusUnauthorized, challenge)
			return
		}
		g := a.lookup(tok)
		switch {
		case a.opts.Loop401, g == nil, time.Now().After(g.expires), g.resource != "" && g.resource != resource:
			a.refuseResource(w, http.StatusUnauthorized, challenge+`, error="invalid_token"`)
			return
		case !hasAll(g.scopes, need):
			a.refuseResource(w, http.StatusForbidden, challenge+`, error="insufficient_scope"`)
			return
		}
		next.ServeHTTP(w, r)
	})
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

func (a *AuthServer) refuseResource(w http.ResponseWriter, status int, challenge string) {
	a.count(func(c *AuthCounts) { c.ResourceRefusals++ })
	w.Header().Set("WWW-Authenticate", challenge)
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
// [AuthServer] does: it requests the authorization URL, does not follow
// the redirect, and returns the code, state and iss of its Location (or
// the error it carries). Give it to
// auth.AuthorizationCodeHandlerConfig.AuthorizationCodeFetcher.
func FetchAuthorizationCode(ctx context.Context, args *sdkauth.AuthorizationArgs) (*sdkauth.AuthorizationResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("mcptest: authorization: %w", err)
	}
	hc := &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mcptest: authorization: %w", err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("mcptest: authorization: status %d and no redirect", resp.StatusCode)
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("mcptest: authorization refused: %s: %s", e, q.Get("error_description"))
	}
	if q.Get("code") == "" {
		return nil, errors.New("mcptest: authorization: the redirect carries no code")
	}
	return &sdkauth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

var _ sdkauth.AuthorizationCodeFetcher = FetchAuthorizationCode

// discardLogger silences an http.Server's own log.
var discardLogger = log.New(io.Discard, "", 0)
