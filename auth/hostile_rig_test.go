package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/dpop"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// This file is the rig of the hostile authorization server tests: three
// origins (the authorization server, the MCP server, and an evil origin a
// hostile answer points to), each counting the requests that reach it and
// those that carry a credential.

const (
	wifJWT    = "eyJ.workload-identity-jwt.never-elsewhere"
	idToken   = "eyJ.user-id-token.never-elsewhere"
	idpSecret = "idp-s3cret-never-elsewhere"
	evilToken = "evil-token"
)

// markers are the body strings that are credentials: the secrets, the
// assertions a source presents, a private_key_jwt assertion, an
// authorization code exchange.
var markers = []string{ccSecret, wifJWT, idToken, idpSecret, "client_assertion", "code_verifier", "subject_token"}

// A peer is one origin: an httptest server that counts what reaches it.
type peer struct {
	srv    *httptest.Server
	handle http.HandlerFunc // set before the first request

	mu       sync.Mutex // guards the fields below
	requests int
	creds    int            // requests carrying a credential (a header or a marker)
	auths    []string       // the Authorization headers seen
	paths    map[string]int // requests by path
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	p := &peer{paths: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		cred := r.Header.Get("Authorization") != "" || r.Header.Get("DPoP") != ""
		for _, m := range markers {
			cred = cred || bytes.Contains(body, []byte(m))
		}
		p.mu.Lock()
		p.requests++
		p.paths[r.URL.Path]++
		if cred {
			p.creds++
		}
		if a := r.Header.Get("Authorization"); a != "" {
			p.auths = append(p.auths, a)
		}
		h := p.handle
		p.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// counts returns the requests and credentials that reached p.
func (p *peer) counts() (requests, creds int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests, p.creds
}

// at returns the requests that reached path.
func (p *peer) at(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paths[path]
}

// saw reports whether an Authorization header p received contains s.
func (p *peer) saw(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.auths {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}

// port returns p's port.
func (p *peer) port() string {
	u, _ := url.Parse(p.srv.URL)
	return u.Port()
}

// asRig is the three origins, their handlers set to an honest
// authorization server and MCP server; a case changes what it attacks.
type asRig struct {
	as, mcp, evil *peer

	mu      sync.Mutex
	issued  int
	methods []string // token_endpoint_auth_methods_supported
	routes  map[string]http.HandlerFunc
	prmAS   string // the authorization server the MCP server names
	prmRes  string // the resource its metadata names; "" is its own
	asMeta  func(w http.ResponseWriter, r *http.Request)
}

func newASRig(t *testing.T) *asRig {
	t.Helper()
	r := &asRig{as: newPeer(t), mcp: newPeer(t), evil: newPeer(t), routes: map[string]http.HandlerFunc{}}
	r.prmAS = r.as.srv.URL
	r.methods = []string{"client_secret_basic", "client_secret_post", "private_key_jwt"}
	r.asMeta = func(w http.ResponseWriter, _ *http.Request) { r.writeMeta(w, r.as.srv.URL, r.as.srv.URL) }
	r.routes["/token"] = r.issue
	r.routes["/issue"] = r.issue
	r.routes["/idp-token"] = r.issue
	r.routes["/register"] = func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"client_id":"dyn-1","client_secret":"dyn-secret","redirect_uris":["http://localhost:1/callback"]}`)
	}
	r.routes["/.well-known/oauth-authorization-server"] = func(w http.ResponseWriter, req *http.Request) { r.asMeta(w, req) }
	r.as.handle = func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		h := r.routes[req.URL.Path]
		r.mu.Unlock()
		if h == nil {
			http.NotFound(w, req)
			return
		}
		h(w, req)
	}
	r.mcp.handle = r.serveMCP
	r.evil.handle = r.serveEvil
	return r
}

// route sets the authorization server's handler of path.
func (r *asRig) route(path string, h http.HandlerFunc) {
	r.mu.Lock()
	r.routes[path] = h
	r.mu.Unlock()
}

// writeMeta writes RFC 8414 metadata naming issuer and the token
// endpoint at base.
func (r *asRig) writeMeta(w http.ResponseWriter, issuer, base string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"issuer":                                issuer,
		"token_endpoint":                        base + "/token",
		"authorization_endpoint":                base + "/authorize",
		"registration_endpoint":                 base + "/register",
		"response_types_supported":              []string{"code"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": r.methods,
	})
}

// issue answers a token request with a fresh token, DPoP-bound when the
// request carried a valid proof, and an ID-JAG's issued_token_type (for a
// token exchange).
func (r *asRig) issue(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.issued++
	n := r.issued
	r.mu.Unlock()
	typ := "Bearer"
	if p, err := dpop.Parse(req.Header.Get("DPoP")); err == nil && p.Method == req.Method {
		typ = "DPoP"
	}
	req.ParseForm()
	if req.PostForm.Get("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange" {
		typ = "N_A"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("good-%d", n), "token_type": typ,
		"issued_token_type": oauthex.TokenTypeIDJAG, "expires_in": 3600})
}

// serveMCP accepts the tokens the authorization server issued and
// answers 401 with its resource metadata otherwise; it serves that
// metadata, naming prmAS.
func (r *asRig) serveMCP(w http.ResponseWriter, req *http.Request) {
	if strings.HasPrefix(req.URL.Path, "/.well-known/oauth-protected-resource") {
		r.mu.Lock()
		as, res := r.prmAS, r.prmRes
		r.mu.Unlock()
		if res == "" {
			res = r.mcp.srv.URL + "/mcp"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": res, "authorization_servers": []string{as}})
		return
	}
	a := req.Header.Get("Authorization")
	if strings.HasPrefix(a, "Bearer good-") || strings.HasPrefix(a, "DPoP good-") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+r.mcp.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
	w.WriteHeader(http.StatusUnauthorized)
}

// serveEvil answers everything as an authorization server would that
// claims to be the honest one: metadata naming the honest issuer and its
// own token endpoint, and its own token for any token request.
func (r *asRig) serveEvil(w http.ResponseWriter, req *http.Request) {
	if strings.HasPrefix(req.URL.Path, "/.well-known/oauth-authorization-server") {
		r.writeMeta(w, r.as.srv.URL, r.evil.srv.URL)
		return
	}
	if strings.HasPrefix(req.URL.Path, "/.well-known/oauth-protected-resource") {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": r.mcp.srv.URL + "/mcp", "authorization_servers": []string{r.evil.srv.URL}})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": evilToken, "token_type": "Bearer",
		"issued_token_type": oauthex.TokenTypeIDJAG, "expires_in": 3600})
}

// target returns where a redirect of the authorization server's sends
// to: its own /issue, or the evil origin on another port of the same
// host, or on another host name (localhost, the same address).
func (r *asRig) target(where string) string {
	switch where {
	case "same origin":
		return r.as.srv.URL + "/issue"
	case "same host, other port":
		return "http://127.0.0.1:" + r.evil.port() + "/token"
	}
	return "http://localhost:" + r.evil.port() + "/token"
}

// redirect returns a handler answering status to to.
func redirect(status int, to string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Location", to)
		w.WriteHeader(status)
	}
}

// drive makes an MCP request through src to the rig's MCP server, letting
// an Authorizer act on a 401 once, and returns what failed.
func (r *asRig) drive(ctx context.Context, src auth.Source) error {
	o, _ := auth.ParseOrigin(r.mcp.srv.URL)
	hc := &http.Client{Transport: auth.NewRoundTripper(nil, o, src), CheckRedirect: auth.CheckRedirect}
	for range 2 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.mcp.srv.URL+"/mcp", nil)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			return nil
		}
		a, ok := src.(auth.Authorizer)
		if !ok || resp.StatusCode != http.StatusUnauthorized {
			resp.Body.Close()
			return fmt.Errorf("MCP server answered %d", resp.StatusCode)
		}
		if err := a.Authorize(ctx, req, resp); err != nil {
			return err
		}
	}
	return fmt.Errorf("MCP server answered 401 after authorization")
}

// held checks what every case must see, and returns why the case broke
// ("" when it held): no request carrying a credential at the evil origin,
// and the evil origin's token never at the MCP server.
func (r *asRig) held() string {
	if _, c := r.evil.counts(); c != 0 {
		return fmt.Sprintf("%d credentials at the evil origin", c)
	}
	if r.mcp.saw(evilToken) {
		return "the evil origin's token presented to the MCP server"
	}
	return ""
}
