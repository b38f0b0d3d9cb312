package httpguard

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/transport"
)

// GuardBase returns base guarded against following a redirect itself (nil
// for nil); its refusals name pkg. A remote transport's New calls it on
// Options.Base, once per factory: a base once refused stays refused for
// every connection of the factory.
//
// A caller's base may follow a redirect itself, as one over an
// http.Client does: the transport's redirect rule would then never see it.
// The guard stands between the credential and such a base:
//
//   - A request body's GetBody is removed, so an http.Client does not send
//     the body and credential again on a 307 or 308.
//   - A second connection within one request, to another address than the
//     first, or any second one within a request other than GET, HEAD or
//     DELETE (whose body, without GetBody, is never sent again), is a
//     redirect followed by the base: the request is cancelled before it is
//     written (httptrace's GetConn). A dial the cancelled request started
//     waits (httptrace's ConnectStart) until the base has returned, so
//     that no connection can win the race against the cancel. The
//     refusal's Status is 0: the base saw the redirect, not this package.
//   - A response to another request than the one sent (an http.Client's
//     resp.Request after a redirect) is checked by auth.CheckRedirect.
//
// Once a base has been seen following a redirect the rule refuses, every
// later request fails with the same error, unsent: the credential is not
// sent through it again.
func GuardBase(pkg string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		return nil
	}
	return &guardedBase{pkg: pkg, base: base}
}

type guardedBase struct {
	pkg  string
	base http.RoundTripper

	mu      sync.Mutex
	refused error
}

func (g *guardedBase) refusal() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

func (g *guardedBase) refuse(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		g.refused = err
	}
	return g.refused
}

// A guardedCall is what one request through a guardedBase holds: the
// addresses it connected to, and its response body, which releases the
// request's context when closed.
type guardedCall struct {
	io.ReadCloser
	cancel context.CancelFunc
	once   bool // a request that is never sent twice (not GET, HEAD or DELETE)

	mu          sync.Mutex
	first, away string
	finished    bool          // the base has returned
	returned    chan struct{} // made by a dial that waits for the base to return
}

// getConn notes each address the request connects to, and cancels it on
// the first other than the first one, or on any second one when once.
func (c *guardedCall) getConn(hostPort string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.first == "":
		c.first = hostPort
	case (hostPort != c.first || c.once) && c.away == "":
		c.away = hostPort
		c.cancel()
	}
}

// connectStart holds a dial started after the request was cancelled until
// the base has returned: the transport then sees the cancel, not a
// connection, whatever the scheduler does.
func (c *guardedCall) connectStart(_, _ string) {
	c.mu.Lock()
	if c.away == "" || c.finished {
		c.mu.Unlock()
		return
	}
	if c.returned == nil {
		c.returned = make(chan struct{})
	}
	ch := c.returned
	c.mu.Unlock()
	<-ch
}

// finish records that the base has returned, and lets a held dial go on.
func (c *guardedCall) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finished = true
	if c.returned != nil {
		close(c.returned)
	}
}

func (c *guardedCall) movedTo() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.away
}

func (c *guardedCall) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

func (g *guardedBase) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := g.refusal(); err != nil {
		closeBody(req)
		return nil, err
	}
	c := &guardedCall{once: req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != http.MethodDelete}
	ctx, cancel := context.WithCancel(req.Context())
	c.cancel = cancel
	r := req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GetConn: c.getConn, ConnectStart: c.connectStart}))
	if r.Body != nil && r.Body != http.NoBody {
		r.GetBody = nil
	}
	resp, err := g.send(c, r)
	if to := c.movedTo(); to != "" {
		drainClose(resp)
		cancel()
		e := &transport.RedirectError{Transport: g.pkg, Method: req.Method, To: to, Err: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}}
		if c.once {
			e.Err = &transport.PolicyError{Rule: transport.RuleRedirectedPOST}
		}
		return nil, g.refuse(e)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	if rerr := followed(g.pkg, req, resp); rerr != nil {
		drainClose(resp)
		cancel()
		return nil, g.refuse(rerr)
	}
	c.ReadCloser = resp.Body
	resp.Body = c
	return resp, nil
}

// send sends r through the base; a dial held for c goes on when it returns.
func (g *guardedBase) send(c *guardedCall, r *http.Request) (*http.Response, error) {
	defer c.finish()
	return g.base.RoundTrip(r)
}

// followed applies auth.CheckRedirect to the chain of requests the base
// made for sent, if resp answers another request than sent: nil when it
// answers sent itself or a redirect the rule allows.
func followed(pkg string, sent *http.Request, resp *http.Response) error {
	last := resp.Request
	if last == nil || last.Response == nil && sameOrigin(sent, last) {
		return nil
	}
	var via []*http.Request
	for r := last.Response; r != nil && r.Request != nil; r = r.Request.Response {
		via = append(via, r.Request)
	}
	for i, j := 0, len(via)-1; i < j; i, j = i+1, j-1 {
		via[i], via[j] = via[j], via[i]
	}
	if len(via) == 0 || !sameOrigin(sent, via[0]) {
		via = append([]*http.Request{sent}, via...) // a base that answered for another origin
	}
	err := auth.CheckRedirect(last, via)
	if e, ok := err.(*transport.RedirectError); ok {
		e.Transport = pkg
	}
	return err
}

func sameOrigin(a, b *http.Request) bool {
	o, err := auth.OriginOf(a.URL)
	return err == nil && o.Matches(b.URL)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

func drainClose(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
	}
}
