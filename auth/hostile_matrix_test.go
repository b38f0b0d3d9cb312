package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
)

// tally counts the cases of a matrix that held, by row and column.
type tally struct {
	mu    sync.Mutex
	cells map[[2]string][2]int // row, column → held, run
	rows  []string
	cols  []string
}

func (tl *tally) add(row, col string, held bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.cells == nil {
		tl.cells = map[[2]string][2]int{}
	}
	k := [2]string{row, col}
	c, seen := tl.cells[k]
	if !seen {
		if !contains(tl.rows, row) {
			tl.rows = append(tl.rows, row)
		}
		if !contains(tl.cols, col) {
			tl.cols = append(tl.cols, col)
		}
	}
	c[1]++
	if held {
		c[0]++
	}
	tl.cells[k] = c
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// table renders the tally as a Markdown table, with the total.
func (tl *tally) table() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var b strings.Builder
	b.WriteString("| case | " + strings.Join(tl.cols, " | ") + " |\n|---|" + strings.Repeat("---|", len(tl.cols)) + "\n")
	held, run := 0, 0
	for _, r := range tl.rows {
		b.WriteString("| " + r)
		for _, c := range tl.cols {
			n, ok := tl.cells[[2]string{r, c}]
			if !ok {
				b.WriteString(" | –")
				continue
			}
			held, run = held+n[0], run+n[1]
			fmt.Fprintf(&b, " | %d/%d", n[0], n[1])
		}
		b.WriteString(" |\n")
	}
	fmt.Fprintf(&b, "\nheld %d of %d cases", held, run)
	return b.String()
}

// held records the case of t as held when why is "", else fails t.
func (tl *tally) record(t *testing.T, row, col, why string) {
	t.Helper()
	tl.add(row, col, why == "")
	if why != "" {
		t.Error(why)
	}
}

// caseDeadline is how long one case may take: a case whose door is
// broken so that it waits fails then, not at go test's timeout.
const caseDeadline = 10 * time.Second

var redirectStatuses = []int{301, 302, 303, 307, 308}

var redirectTargets = []string{"same origin", "same host, other port", "other host"}

// TestHostileAuthorizationServerMatrix attacks the outbound door as a
// hostile authorization server (or MCP server) would: every redirect
// status, to the same origin and to another (the same host on another
// port, another host), of the request carrying each kind of credential,
// through the default client, a caller's client that follows every
// redirect, and a DPoP client whose CheckRedirect was set to follow every
// redirect; then metadata redirects, issuer and resource mismatches, and
// hostile token responses. Every case counts the requests and credentials
// at each origin and must see none at the evil one, and ends at its own
// deadline. It logs the table of cases held.
func TestHostileAuthorizationServerMatrix(t *testing.T) {
	leakcheck.Check(t)
	var tl tally
	for _, kind := range credKinds {
		for _, ck := range clientKinds {
			for _, status := range redirectStatuses {
				for _, where := range redirectTargets {
					t.Run(fmt.Sprintf("%s/%s/%d to %s", kind.name, ck.name, status, where), func(t *testing.T) {
						tl.record(t, "redirect: "+kind.name, ck.name, redirectCase(t, ck, kind, status, where))
					})
				}
			}
		}
	}
	for _, mc := range metadataCases {
		for _, ck := range clientKinds {
			t.Run(mc.name+"/"+ck.name, func(t *testing.T) {
				tl.record(t, mc.name, ck.name, runMetadataCase(t, ck, mc))
			})
		}
	}
	for _, rc := range responseCases {
		for _, ck := range clientKinds {
			if (rc.dpopOnly && ck.name != "DPoP client") || (rc.noDPoP && ck.name == "DPoP client") {
				continue
			}
			t.Run("token response "+rc.name+"/"+ck.name, func(t *testing.T) {
				tl.record(t, "token response: "+rc.name, ck.name, runResponseCase(t, ck, rc))
			})
		}
	}
	t.Logf("hostile authorization server matrix:\n%s", tl.table())
}

// redirectCase redirects the request that carries kind's credential with
// status to where, and returns why the case broke ("" if it held): the
// redirect must be refused before anything is sent to its target, with a
// typed error.
func redirectCase(t *testing.T, ck clientKind, kind credKind, status int, where string) string {
	ctx, cancel := context.WithTimeout(testkit.Context(t), caseDeadline)
	defer cancel()
	r := newASRig(t)
	hc := ck.make(t)
	to, attacked, followed := r.target(where), r.as, "/issue"
	var err error
	if kind.mcp {
		attacked = r.mcp
		if where == "same origin" {
			to, followed = r.mcp.srv.URL+"/other", "/other"
		}
		r.mcp.handle = func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/mcp" {
				redirect(status, to)(w, req)
				return
			}
			r.serveMCP(w, req)
		}
		err = mcpConnect(ctx, t, r, ck.name, hc)
	} else {
		r.route(kind.path, redirect(status, to))
		src, e := kind.source(t, r, hc)
		if e != nil {
			t.Fatal(e)
		}
		err = r.drive(ctx, src)
	}
	if why := r.held(); why != "" {
		return why
	}
	if n, _ := r.evil.counts(); n != 0 {
		return fmt.Sprintf("%d requests at the evil origin", n)
	}
	if n := attacked.at(kind.path); n != 1 {
		return fmt.Sprintf("%s saw %d requests, want 1", kind.path, n)
	}
	// A base over the caller's client follows the redirect itself: the
	// transport cancels the second request before it is written, without
	// seeing the status (0). Within the origin, over a connection the base
	// keeps idle, the cancel may come too late: that one request stays in
	// the origin, and its answer is refused.
	baseFollows := kind.mcp && ck.name == "caller's client"
	if n := attacked.at(followed); n != 0 && !(baseFollows && where == "same origin" && n == 1) {
		return fmt.Sprintf("the redirect was followed: %d requests at %s", n, followed)
	}
	if !errors.Is(err, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}) {
		return fmt.Sprintf("error = %v, want one wrapping &transport.PolicyError{Rule: transport.RuleRedirectedPOST}", err)
	}
	var re *transport.RedirectError
	if !errors.As(err, &re) || re.Status != status && !(baseFollows && re.Status == 0) {
		return fmt.Sprintf("error = %v, want a *transport.RedirectError of status %d", err, status)
	}
	return ""
}

// A metadataCase sets up discovery gone wrong for a client credentials
// source that discovers its token endpoint.
type metadataCase struct {
	name   string
	issuer bool // pin Issuer to the honest authorization server
	setup  func(r *asRig)
	want   error // what the error wraps; nil: the request succeeds
	// source, if set, is the source in place of client credentials.
	source func(r *asRig, hc *http.Client) (auth.Source, error)
}

var metadataCases = []metadataCase{
	{name: "metadata 302 to another origin claiming the pinned issuer", issuer: true, want: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect},
		setup: func(r *asRig) {
			r.route("/.well-known/oauth-authorization-server", redirect(302, "http://localhost:"+r.evil.port()+"/.well-known/oauth-authorization-server"))
		}},
	{name: "metadata 307 to the same host, other port, claiming the pinned issuer", issuer: true, want: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect},
		setup: func(r *asRig) {
			r.route("/.well-known/oauth-authorization-server", redirect(307, "http://127.0.0.1:"+r.evil.port()+"/.well-known/oauth-authorization-server"))
		}},
	{name: "metadata 308 to another origin, no pinned issuer", want: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect},
		setup: func(r *asRig) {
			r.route("/.well-known/oauth-authorization-server", redirect(308, "http://localhost:"+r.evil.port()+"/.well-known/oauth-authorization-server"))
		}},
	{name: "metadata 301 within its origin", issuer: true,
		setup: func(r *asRig) {
			r.route("/.well-known/oauth-authorization-server", redirect(301, r.as.srv.URL+"/meta"))
			r.route("/meta", func(w http.ResponseWriter, _ *http.Request) { r.writeMeta(w, r.as.srv.URL, r.as.srv.URL) })
		}},
	{name: "IdP metadata 302 to another origin claiming the IdP's issuer", want: &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect},
		setup: func(r *asRig) {
			r.route("/.well-known/oauth-authorization-server", redirect(302, "http://localhost:"+r.evil.port()+"/.well-known/oauth-authorization-server"))
		},
		source: func(r *asRig, hc *http.Client) (auth.Source, error) {
			return auth.NewEnterprise(&auth.EnterpriseConfig{
				IDToken:   func(context.Context) (auth.Token, error) { return auth.NewToken(idToken), nil },
				IdPIssuer: r.as.srv.URL, IdPClientID: "idp-client", IdPClientSecret: auth.NewSecret(idpSecret),
				ClientID: ccClientID, TokenURL: r.as.srv.URL + "/issue", Issuer: r.as.srv.URL, Resource: r.mcp.srv.URL + "/mcp", HTTPClient: hc})
		}},
	{name: "resource metadata 302 to another origin", want: errNoMetadata,
		setup: func(r *asRig) {
			h := r.mcp.handle
			r.mcp.handle = func(w http.ResponseWriter, req *http.Request) {
				if strings.HasPrefix(req.URL.Path, "/.well-known/") {
					redirect(302, "http://localhost:"+r.evil.port()+req.URL.Path)(w, req)
					return
				}
				h(w, req)
			}
		}},
	{name: "issuer mismatch: the server names another authorization server", issuer: true, want: refusal(auth.RuleIssuer),
		setup: func(r *asRig) { r.prmAS = r.evil.srv.URL }},
	{name: "issuer mismatch: the metadata names another issuer", want: refusal(auth.RuleIssuer),
		setup: func(r *asRig) {
			r.asMeta = func(w http.ResponseWriter, _ *http.Request) { r.writeMeta(w, r.evil.srv.URL, r.evil.srv.URL) }
		}},
	{name: "resource mismatch: the metadata names another resource", want: errNoMetadata,
		setup: func(r *asRig) { r.prmRes = "http://localhost:" + r.evil.port() + "/mcp" }},
}

// errNoMetadata stands for "no protected resource metadata": the error
// carries no sentinel of its own, only its text.
var errNoMetadata = errors.New("no protected resource metadata")

func runMetadataCase(t *testing.T, ck clientKind, mc metadataCase) string {
	ctx, cancel := context.WithTimeout(testkit.Context(t), caseDeadline)
	defer cancel()
	r := newASRig(t)
	mc.setup(r)
	cfg := &auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), HTTPClient: ck.make(t)}
	if mc.issuer {
		cfg.Issuer = r.as.srv.URL
	}
	var src auth.Source
	var err error
	if mc.source != nil {
		src, err = mc.source(r, cfg.HTTPClient)
	} else {
		src, err = auth.NewClientCredentials(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	err = r.drive(ctx, src)
	if why := r.held(); why != "" {
		return why
	}
	if n, _ := r.evil.counts(); n != 0 {
		return fmt.Sprintf("%d requests at the evil origin", n)
	}
	switch {
	case mc.want == nil && err != nil:
		return fmt.Sprintf("error = %v, want none", err)
	case mc.want == nil:
		return ""
	case mc.want == errNoMetadata && (err == nil || !strings.Contains(err.Error(), mc.want.Error())):
		return fmt.Sprintf("error = %v, want %q", err, mc.want)
	case mc.want != errNoMetadata && !matches(err, mc.want):
		return fmt.Sprintf("error = %v, want one wrapping %v", err, mc.want)
	}
	if n := r.as.at("/token"); n != 0 {
		return fmt.Sprintf("%d token requests at the authorization server after a refused discovery", n)
	}
	return ""
}

// A responseCase is a token endpoint's answer.
type responseCase struct {
	name     string
	body     string // the JSON answer; "" for huge
	huge     int    // bytes of an endless answer
	dpopOnly bool   // only with the DPoP client
	noDPoP   bool   // only with a client without a DPoP key
	want     error  // what the error wraps; nil: the token is used
	// wantText is what the error says when it has no sentinel.
	wantText string
}

var responseCases = []responseCase{
	{name: "token_type mac", body: `{"access_token":"good-x","token_type":"mac","expires_in":60}`, want: refusal(auth.RuleTokenType)},
	{name: "token_type with terminal escapes", body: `{"access_token":"good-x","token_type":"Bearer\u001b]52;c;cHduZWQ=\u0007","expires_in":60}`, want: refusal(auth.RuleTokenType)},
	{name: "token_type bearer, lower case", body: `{"access_token":"good-x","token_type":"bearer","expires_in":60}`},
	{name: "token_type BEARER", body: `{"access_token":"good-x","token_type":"BEARER","expires_in":60}`},
	{name: "token_type missing (Bearer)", body: `{"access_token":"good-x","expires_in":60}`},
	{name: "access_token missing", body: `{"token_type":"Bearer","expires_in":60}`, wantText: "access_token"},
	{name: "not JSON", body: `<html>`, wantText: "token"},
	{name: "huge body", huge: 64 << 20, wantText: "token"},
	{name: "token_type DPoP to a client without a key", body: `{"access_token":"good-x","token_type":"DPoP","expires_in":60}`, noDPoP: true, want: refusal(auth.RuleTokenType)},
	{name: "token_type DPoP to a client with a key", body: `{"access_token":"good-x","token_type":"DPoP","expires_in":60}`, dpopOnly: true},
}

func runResponseCase(t *testing.T, ck clientKind, rc responseCase) string {
	ctx, cancel := context.WithTimeout(testkit.Context(t), caseDeadline)
	defer cancel()
	r := newASRig(t)
	sent := make(chan int64, 1)
	r.route("/token", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if rc.huge == 0 {
			w.Write([]byte(rc.body))
			return
		}
		sent <- writeHuge(ctx, w, rc.huge)
	})
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret),
		TokenURL: r.as.srv.URL + "/token", HTTPClient: ck.make(t)})
	if err != nil {
		t.Fatal(err)
	}
	err = r.drive(ctx, src)
	if why := r.held(); why != "" {
		return why
	}
	if rc.huge != 0 {
		var n int64
		select {
		case n = <-sent:
		case <-ctx.Done():
			return "the endless answer was never sent"
		}
		if n >= int64(rc.huge) {
			return fmt.Sprintf("the client read all %d bytes of an endless answer", n)
		}
		t.Logf("the token endpoint wrote %d bytes before the client stopped reading", n)
	}
	_, creds := r.mcp.counts()
	switch {
	case rc.want == nil && rc.wantText == "":
		if err != nil {
			return fmt.Sprintf("error = %v, want none", err)
		}
		if !r.mcp.saw("good-x") {
			return "the MCP server never saw the issued token"
		}
		return ""
	case rc.want != nil && !matches(err, rc.want):
		return fmt.Sprintf("error = %v, want one wrapping %v", err, rc.want)
	case rc.wantText != "" && (err == nil || !strings.Contains(err.Error(), rc.wantText)):
		return fmt.Sprintf("error = %v, want one saying %q", err, rc.wantText)
	case strings.ContainsAny(err.Error(), "\x1b\x07"):
		return fmt.Sprintf("the error shows control characters raw: %q", err.Error())
	case creds != 0:
		return fmt.Sprintf("%d MCP requests carried a refused token", creds)
	}
	return ""
}

// writeHuge writes up to n bytes of an endless JSON string, and returns
// how many the client took before it hung up.
func writeHuge(ctx context.Context, w http.ResponseWriter, n int) int64 {
	chunk := []byte(strings.Repeat("a", 32<<10))
	var sent int64
	w.Write([]byte(`{"access_token":"`))
	for sent < int64(n) && ctx.Err() == nil {
		m, err := w.Write(chunk)
		sent += int64(m)
		if err != nil {
			break
		}
	}
	return sent
}
