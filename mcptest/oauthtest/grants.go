package oauthtest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The grant types and token types of the assertion grants.
const (
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	typIDJAG           = "oauth-id-jag+jwt"
	idJAGTTL           = 5 * time.Minute
)

// IDToken returns a JWT the server signs as an identity provider would. It
// has iss its URL, sub subject, aud audience, and a jti. It is issued now
// and expires ttl from now. Zero means the server's TokenTTL; a negative
// ttl gives a token expired already. It stands for a workload's token: a
// CI job's OIDC token, for workload identity federation, with audience the
// authorization server's URL. It also stands for a user's ID token, for
// enterprise-managed authorization. Its audience is then the client's ID
// at this server, which acts as the IdP. Its jwt-bearer grant and its token exchange take it, and so
// do those of the servers that list this one in AuthServerOptions.Trust.
// The signature (ES256, a key the server made at start) is not
// deterministic.
func (a *AuthServer) IDToken(subject, audience string, ttl time.Duration) string {
	if ttl == 0 {
		ttl = a.opts.TokenTTL
	}
	now := a.clock()
	a.mu.Lock()
	id := a.next("jwt")
	a.mu.Unlock()
	return a.sign("JWT", jwt.MapClaims{
		"iss": a.URL, "sub": subject, "aud": audience, "jti": id,
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(),
	})
}

func (a *AuthServer) sign(typ string, claims jwt.MapClaims) string {
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = typ
	s, err := t.SignedString(a.signer)
	if err != nil {
		panic("oauthtest: signing a JWT: " + err.Error()) // an ECDSA key of its own: cannot fail
	}
	return s
}

// verify checks a JWT this server or one it trusts signed: the signature,
// exp (required), and an audience among audiences. It returns the claims
// and the typ header.
func (a *AuthServer) verify(token string, audiences ...string) (jwt.MapClaims, string, error) {
	claims := jwt.MapClaims{}
	t, err := jwt.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		iss, _ := claims["iss"].(string)
		if iss == a.URL {
			return &a.signer.PublicKey, nil
		}
		for _, o := range a.opts.Trust {
			if o.URL == iss {
				return &o.signer.PublicKey, nil
			}
		}
		return nil, fmt.Errorf("issuer %q is not trusted", iss)
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithExpirationRequired(), jwt.WithTimeFunc(a.clock))
	if err != nil {
		return nil, "", err
	}
	aud, _ := claims.GetAudience()
	if !slices.ContainsFunc(aud, func(s string) bool { return slices.Contains(audiences, strings.TrimSuffix(s, "/")) }) {
		return nil, "", fmt.Errorf("audience %v, want one of %v", aud, audiences)
	}
	typ, _ := t.Header["typ"].(string)
	return claims, typ, nil
}

// jwtBearerGrant is the JWT-bearer grant (RFC 7523 §2.1): a workload's
// token (workload identity federation; c may be nil, the workload acting
// as itself) or an ID-JAG (enterprise-managed authorization; c must be the
// client the ID-JAG names). The assertion's audience must be this server
// (its URL or its token endpoint).
func (a *AuthServer) jwtBearerGrant(w http.ResponseWriter, c *AuthClient, f url.Values, jkt string) {
	claims, typ, err := a.verify(f.Get("assertion"), a.URL, a.URL+"/token")
	if err != nil {
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "assertion: "+err.Error())
		return
	}
	sub, _ := claims["sub"].(string)
	resource := f.Get("resource")
	client := "workload:" + sub
	if c != nil {
		client = c.ID
	}
	if typ == typIDJAG {
		jagClient, _ := claims["client_id"].(string)
		jagResource, _ := claims["resource"].(string)
		switch {
		case c == nil || jagClient != c.ID:
			a.refuse(w, http.StatusBadRequest, "invalid_grant", fmt.Sprintf("the ID-JAG is for client %q", jagClient))
			return
		case resource != "" && jagResource != "" && resource != jagResource:
			a.refuse(w, http.StatusBadRequest, "invalid_grant", "the ID-JAG is for resource "+jagResource)
			return
		case resource == "":
			resource = jagResource
		}
	}
	scopes, bad := a.scopes(f.Get("scope"))
	if bad != "" {
		a.refuse(w, http.StatusBadRequest, "invalid_scope", bad)
		return
	}
	a.issue(w, &grant{client: client, scopes: scopes, resource: resource, jkt: jkt}, false)
}

// tokenExchange is the token exchange of enterprise-managed
// authorization, this server acting as the IdP (RFC 8693, SEP-990). It
// takes an ID token for client c, which this server or one it trusts
// signed. It gives an ID-JAG with the audience and resource asked for,
// naming c.
func (a *AuthServer) tokenExchange(w http.ResponseWriter, c *AuthClient, f url.Values) {
	switch {
	case f.Get("subject_token_type") != tokenTypeIDToken:
		a.refuse(w, http.StatusBadRequest, "invalid_request", "subject_token_type must be "+tokenTypeIDToken)
		return
	case f.Get("requested_token_type") != tokenTypeIDJAG:
		a.refuse(w, http.StatusBadRequest, "invalid_request", "requested_token_type must be "+tokenTypeIDJAG)
		return
	case f.Get("audience") == "":
		a.refuse(w, http.StatusBadRequest, "invalid_request", "no audience")
		return
	}
	claims, _, err := a.verify(f.Get("subject_token"), c.ID)
	if err != nil {
		a.refuse(w, http.StatusBadRequest, "invalid_grant", "subject_token: "+err.Error())
		return
	}
	now := a.clock()
	a.mu.Lock()
	id := a.next("jag")
	a.mu.Unlock()
	jag := jwt.MapClaims{
		"iss": a.URL, "sub": claims["sub"], "aud": f.Get("audience"), "client_id": c.ID, "jti": id,
		"iat": now.Unix(), "exp": now.Add(idJAGTTL).Unix(),
	}
	if r := f.Get("resource"); r != "" {
		jag["resource"] = r
	}
	if sc := f.Get("scope"); sc != "" {
		jag["scope"] = sc
	}
	w.Header().Set("Cache-Control", "no-store")
	body := map[string]any{
		"access_token":      a.sign(typIDJAG, jag),
		"issued_token_type": tokenTypeIDJAG,
		"token_type":        "N_A",
		"expires_in":        int(idJAGTTL / time.Second),
	}
	if sc := f.Get("scope"); sc != "" {
		body["scope"] = sc
	}
	writeJSON(w, http.StatusOK, body)
}
