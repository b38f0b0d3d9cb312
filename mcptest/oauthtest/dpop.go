package oauthtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/looprig/mcp/internal/dpop"
)

// DPoPProofWindow is how far a DPoP proof's iat may be from the fake
// authorization server's clock, either way (the ±5 minutes the MCP DPoP
// profile asks servers to accept).
const DPoPProofWindow = 5 * time.Minute

// A proofError is why a proof was refused: the OAuth error code
// (invalid_dpop_proof, use_dpop_nonce, invalid_token) and a description.
type proofError struct{ code, why string }

// tokenProof checks the DPoP proof of a token request. It returns the
// thumbprint of its key ("" for a request without a proof), or writes the
// refusal and returns false.
func (a *AuthServer) tokenProof(w http.ResponseWriter, r *http.Request) (string, bool) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) == 0 {
		if a.opts.RequireDPoP {
			a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
			a.refuse(w, http.StatusBadRequest, "invalid_dpop_proof", "a DPoP proof is required")
			return "", false
		}
		return "", true
	}
	jkt, perr := a.checkProof(proofs, r.Method, a.URL+"/token", "")
	if perr != nil {
		if perr.code == "use_dpop_nonce" {
			w.Header().Set("DPoP-Nonce", a.currentNonce())
		}
		a.refuse(w, http.StatusBadRequest, perr.code, perr.why)
		return "", false
	}
	return jkt, true
}

// resourceProof checks the DPoP proof of a request to the protected
// resource presenting the DPoP-bound token tok of g, sent with scheme.
func (a *AuthServer) resourceProof(r *http.Request, scheme, tok string, g *grant) *proofError {
	if !strings.EqualFold(scheme, "DPoP") {
		a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
		return &proofError{"invalid_token", "a DPoP-bound token sent as " + scheme}
	}
	proofs := r.Header.Values("DPoP")
	if len(proofs) == 0 {
		a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
		return &proofError{"invalid_dpop_proof", "no DPoP proof"}
	}
	jkt, perr := a.checkProof(proofs, r.Method, "http://"+r.Host+r.URL.Path, tok)
	if perr != nil {
		return perr
	}
	if jkt != g.jkt {
		a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
		return &proofError{"invalid_dpop_proof", "the proof's key is not the token's"}
	}
	return nil
}

// checkProof checks one proof for a request of method to uri (and, with
// token, presenting it), counts it, and returns its key's thumbprint.
func (a *AuthServer) checkProof(proofs []string, method, uri, token string) (string, *proofError) {
	a.count(func(c *AuthCounts) { c.DPoPProofs++ })
	why := ""
	var p *dpop.Proof
	if len(proofs) != 1 {
		why = "more than one DPoP header"
	} else if pp, err := dpop.Parse(proofs[0]); err != nil {
		why = err.Error()
	} else {
		p = pp
		why = a.proofClaims(p, method, uri, token)
	}
	if why != "" {
		a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
		return "", &proofError{"invalid_dpop_proof", why}
	}
	if a.opts.DPoPNonce && (a.opts.StaleNonces || p.Nonce == "" || p.Nonce != a.currentNonce()) {
		a.mu.Lock()
		if a.opts.StaleNonces {
			a.nonce = a.next("nonce") // the one the proof carried is stale now
		}
		a.counts.NoncesIssued++
		a.mu.Unlock()
		return "", &proofError{"use_dpop_nonce", "a DPoP nonce is required"}
	}
	if !a.firstUse(p) {
		a.count(func(c *AuthCounts) { c.DPoPRefusals++ })
		return "", &proofError{"invalid_dpop_proof", "the proof was used before (jti " + p.ID + ")"}
	}
	return p.Thumbprint, nil
}

// proofClaims checks what a proof says of its request; "" when it fits.
func (a *AuthServer) proofClaims(p *dpop.Proof, method, uri, token string) string {
	iat := time.Unix(p.Issued, 0)
	now := a.clock()
	switch {
	case p.Method != method:
		return fmt.Sprintf("htm %s, want %s", p.Method, method)
	case !sameURI(p.URI, uri):
		return fmt.Sprintf("htu %s, want %s", p.URI, uri)
	case iat.Before(now.Add(-DPoPProofWindow)) || iat.After(now.Add(DPoPProofWindow)):
		return fmt.Sprintf("iat %d is more than %v from now", p.Issued, DPoPProofWindow)
	case token != "" && p.TokenHash != dpop.TokenHash(token):
		return "ath is not the hash of the access token"
	}
	return ""
}

// firstUse records p's jti, reporting whether it is new. Proofs older than
// the window are forgotten: they would be refused for their iat anyway.
func (a *AuthServer) firstUse(p *dpop.Proof) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	cut := a.now().Add(-DPoPProofWindow)
	for k, iat := range a.jtis {
		if iat.Before(cut) {
			delete(a.jtis, k)
		}
	}
	k := p.Thumbprint + " " + p.ID
	if _, seen := a.jtis[k]; seen {
		return false
	}
	a.jtis[k] = time.Unix(p.Issued, 0)
	return true
}

// currentNonce returns the current nonce, issuing the first one.
func (a *AuthServer) currentNonce() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nonce == "" {
		a.nonce = a.next("nonce")
	}
	return a.nonce
}

// sameURI compares htu values as RFC 9449 §4.3 asks: scheme and host
// without regard to case, path as it is, no query or fragment.
func sameURI(got, want string) bool {
	g, err1 := url.Parse(got)
	w, err2 := url.Parse(want)
	if err1 != nil || err2 != nil || g.RawQuery != "" || g.Fragment != "" {
		return false
	}
	return strings.EqualFold(g.Scheme, w.Scheme) && strings.EqualFold(g.Host, w.Host) && g.EscapedPath() == w.EscapedPath()
}

// usesDPoP reports whether the server asks for DPoP, so that its
// resource's challenges offer the DPoP scheme too.
func (a *AuthServer) usesDPoP() bool { return a.opts.RequireDPoP || a.opts.DPoPNonce }

// clock returns the server's time (a test may set its clock).
func (a *AuthServer) clock() time.Time {
	a.mu.Lock()
	now := a.now
	a.mu.Unlock()
	return now()
}
