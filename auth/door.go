package auth

import (
	"net/http"
	"time"

	"github.com/looprig/mcp/transport"
)

// This file is the outbound door: the one redirect rule of every request
// this module sends with a credential or a secret (MCP requests, token
// requests, metadata, registration, JWT bearer, DPoP, token exchange).

// CheckRedirect is the redirect rule of every request that carries a
// credential or a secret; it fits an http.Client's CheckRedirect. A
// request other than GET, HEAD or DELETE follows no redirect (a token,
// registration or exchange request, an MCP POST). A GET, HEAD or DELETE
// follows one only within the origin of the first request, up to
// [transport.MaxRedirects] times. A refusal is a
// [*transport.RedirectError] with Transport "auth", wrapping
// [transport.RuleRedirectedPOST], [transport.RuleCrossOriginRedirect] or
// [transport.RuleTooManyRedirects].
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	prev := via[len(via)-1]
	e := &transport.RedirectError{Transport: "auth", Method: prev.Method, To: "null"}
	if req.Response != nil {
		e.Status = req.Response.StatusCode
	}
	if o, err := OriginOf(req.URL); err == nil {
		e.To = o.String()
	}
	first, err := OriginOf(via[0].URL)
	switch {
	case prev.Method != http.MethodGet && prev.Method != http.MethodHead && prev.Method != http.MethodDelete:
		e.Err = &transport.PolicyError{Rule: transport.RuleRedirectedPOST}
	case err != nil || !first.Matches(req.URL):
		e.Err = &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}
	case len(via) > transport.MaxRedirects:
		e.Err = &transport.PolicyError{Rule: transport.RuleTooManyRedirects}
	default:
		return nil
	}
	return e
}

// checkRedirected applies CheckRedirect to a request an http.Client made
// to follow a redirect (req.Response is set), whatever the client's own
// CheckRedirect allowed. A round tripper of this package calls it first.
func checkRedirected(req *http.Request) error {
	if req.Response == nil {
		return nil
	}
	var via []*http.Request
	for r := req.Response; r != nil && r.Request != nil; r = r.Request.Response {
		via = append(via, r.Request)
	}
	for i, j := 0, len(via)-1; i < j; i, j = i+1, j-1 {
		via[i], via[j] = via[j], via[i]
	}
	if err := CheckRedirect(req, via); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return err
	}
	return nil
}

// guardClient returns the client a source sends through: a copy of c (nil
// means a client with a 30-second timeout) whose CheckRedirect is
// [CheckRedirect], whatever c's was. Its transport is c's, untouched, so
// that the go-sdk's own checks of a plain *http.Transport still apply.
func guardClient(c *http.Client) *http.Client {
	g := &http.Client{Timeout: 30 * time.Second}
	if c != nil {
		c2 := *c
		g = &c2
	}
	g.CheckRedirect = CheckRedirect
	return g
}
