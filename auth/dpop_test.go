package auth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/dpop"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tokenEndpoint is a token endpoint issuing tok-1, tok-2, … of type typ,
// checking the DPoP proof of each request it counts; it answers the first
// nonceAsks requests use_dpop_nonce, each with a new nonce.
type tokenEndpoint struct {
	srv       *httptest.Server
	typ       string
	nonceAsks int
	refuse    string // an OAuth error code to refuse every request with

	mu       sync.Mutex // guards the fields below
	requests int
	proofs   []*dpop.Proof // the proofs of the requests, in order (nil for none)
}

func newTokenEndpoint(t *testing.T, typ string, nonceAsks int) *tokenEndpoint {
	t.Helper()
	te := &tokenEndpoint{typ: typ, nonceAsks: nonceAsks}
	te.srv = httptest.NewServer(http.HandlerFunc(te.serve))
	t.Cleanup(te.srv.Close)
	return te
}

func (te *tokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	var p *dpop.Proof
	if h := r.Header.Get("DPoP"); h != "" {
		p, _ = dpop.Parse(h)
	}
	te.mu.Lock()
	te.requests++
	n := te.requests
	te.proofs = append(te.proofs, p)
	te.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case te.refuse != "":
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": te.refuse})
	case n <= te.nonceAsks:
		w.Header().Set("DPoP-Nonce", fmt.Sprintf("as-nonce-%d", n))
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "use_dpop_nonce"})
	default:
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": te.typ, "expires_in": 3600})
	}
}

func (te *tokenEndpoint) seen() (int, []*dpop.Proof) {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.requests, append([]*dpop.Proof(nil), te.proofs...)
}

// dpopSource is a client credentials source with TokenURL te, its token
// requests made through key's client.
func dpopSource(t *testing.T, te *tokenEndpoint, key auth.DPoPKey) *auth.ClientCredentials {
	t.Helper()
	src, err := auth.NewClientCredentials(&auth.ClientCredentialsConfig{
		ClientID: ccClientID, ClientSecret: auth.NewSecret(ccSecret), TokenURL: te.srv.URL + "/token", HTTPClient: key.Client(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func newKey(t *testing.T) auth.DPoPKey {
	t.Helper()
	k, err := auth.NewDPoPKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A token request through the key's client carries a proof (htm POST, htu
// the endpoint, no ath), and the token endpoint's use_dpop_nonce is
// answered by one retry with its nonce: 1 request without a nonce demand,
// 2 with one, 2 with two, the second refusal a GrantError.
func TestDPoPTokenRequestNonceAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		asks, requests int
		ok             bool
	}{{0, 1, true}, {1, 2, true}, {2, 2, false}} {
		t.Run(fmt.Sprint(tc.asks), func(t *testing.T) {
			te := newTokenEndpoint(t, "DPoP", tc.asks)
			_, err := dpopSource(t, te, newKey(t)).Credential(t.Context(), httptest.NewRequest("POST", "http://mcp.example/mcp", nil))
			var ge *auth.GrantError
			switch {
			case tc.ok && err != nil:
				t.Fatalf("Credential: %v", err)
			case !tc.ok && (!errors.As(err, &ge) || ge.Code != "use_dpop_nonce"):
				t.Fatalf("Credential error = %v, want a GrantError use_dpop_nonce", err)
			}
			n, proofs := te.seen()
			if n != tc.requests {
				t.Fatalf("the token endpoint saw %d requests, want %d", n, tc.requests)
			}
			for i, p := range proofs {
				wantNonce := ""
				if i > 0 {
					wantNonce = fmt.Sprintf("as-nonce-%d", i)
				}
				if p == nil || p.Method != "POST" || p.URI != te.srv.URL+"/token" || p.TokenHash != "" || p.Nonce != wantNonce {
					t.Errorf("request %d: proof %+v, want htm POST, htu the endpoint, no ath, nonce %q", i, p, wantNonce)
				}
			}
		})
	}
}

// Other refusals of a token request are not sent again, even through the
// key's client.
func TestDPoPTokenRequestOtherRefusalNotRetried(t *testing.T) {
	leakcheck.Check(t)
	te := newTokenEndpoint(t, "DPoP", 0)
	te.refuse = "invalid_grant"
	_, err := dpopSource(t, te, newKey(t)).Credential(t.Context(), httptest.NewRequest("POST", "http://mcp.example/mcp", nil))
	var ge *auth.GrantError
	if !errors.As(err, &ge) || ge.Code != "invalid_grant" || ge.Status != 400 || ge.Grant != "client_credentials" {
		t.Fatalf("Credential error = %v, want a GrantError invalid_grant", err)
	}
	if n, _ := te.seen(); n != 1 {
		t.Errorf("the token endpoint saw %d requests, want 1", n)
	}
}

// dpopCounter is a server recording the DPoP and Authorization headers of
// every request.
type dpopCounter struct {
	mu      sync.Mutex // guards seen
	seen    []http.Header
	handler http.HandlerFunc // answers, after recording; nil: 200
}

func (c *dpopCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.seen = append(c.seen, r.Header.Clone())
	c.mu.Unlock()
	if c.handler != nil {
		c.handler(w, r)
	}
}

func (c *dpopCounter) headers() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.seen...)
}

// A DPoP-bound token goes to the validated origin only, with a fresh proof
// per request (htm, htu without the query, ath of the token, a new jti);
// the other origin, reached by redirects a plain client follows, gets
// neither the token nor a proof: 0 requests there carry a DPoP header.
func TestDPoPOnlyToOrigin(t *testing.T) {
	leakcheck.Check(t)
	other := &dpopCounter{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	home := &dpopCounter{handler: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			http.Redirect(w, r, otherSrv.URL+"/x", map[string]int{"/307": 307, "/308": 308, "/302": 302}[r.URL.Path])
		}
	}}
	homeSrv := httptest.NewServer(home)
	t.Cleanup(homeSrv.Close)
	origin, _ := auth.ParseOrigin(homeSrv.URL)
	te := newTokenEndpoint(t, "DPoP", 0)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: auth.NewRoundTripper(tr, origin, dpopSource(t, te, newKey(t)))}
	for _, tc := range []struct{ method, path string }{
		{"POST", "/mcp?q=1"}, {"GET", "/mcp"}, {"POST", "/307"}, {"POST", "/308"}, {"GET", "/302"}, {"DELETE", "/mcp"},
	} {
		req, _ := http.NewRequest(tc.method, homeSrv.URL+tc.path, strings.NewReader("{}"))
		req.Header.Set("DPoP", "caller-set") // a header the caller set is replaced, or stripped
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		resp.Body.Close()
	}
	jtis := map[string]bool{}
	for i, h := range home.headers() {
		p, err := dpop.Parse(h.Get("DPoP"))
		if err != nil || len(h.Values("DPoP")) != 1 {
			t.Fatalf("home request %d: proof %q: %v", i, h.Values("DPoP"), err)
		}
		if h.Get("Authorization") != "DPoP tok-1" || p.TokenHash != dpop.TokenHash("tok-1") || jtis[p.ID] {
			t.Errorf("home request %d: Authorization %q, proof %+v: want DPoP tok-1, its ath, a new jti", i, h.Get("Authorization"), p)
		}
		if strings.Contains(p.URI, "?") || !strings.HasPrefix(p.URI, homeSrv.URL+"/") {
			t.Errorf("home request %d: htu %s", i, p.URI)
		}
		jtis[p.ID] = true
	}
	if n := len(home.headers()); n != 6 {
		t.Errorf("home saw %d requests, want 6", n)
	}
	withDPoP := 0
	for _, h := range other.headers() {
		if h.Get("DPoP") != "" || h.Get("Authorization") != "" {
			withDPoP++
		}
	}
	if n := len(other.headers()); n != 3 || withDPoP != 0 {
		t.Errorf("the other origin saw %d requests, %d with a DPoP or Authorization header; want 3 and 0", n, withDPoP)
	}
}

// A token the authorization server issued as Bearer goes as Bearer, with
// no proof, even through a key's client (RFC 9449 §5: the token type
// decides).
func TestDPoPBearerTokenGoesAsBearer(t *testing.T) {
	leakcheck.Check(t)
	home := &dpopCounter{}
	srv := httptest.NewServer(home)
	t.Cleanup(srv.Close)
	origin, _ := auth.ParseOrigin(srv.URL)
	c := &http.Client{Transport: auth.NewRoundTripper(nil, origin, dpopSource(t, newTokenEndpoint(t, "Bearer", 0), newKey(t)))}
	resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := home.headers()[0]
	if h.Get("Authorization") != "Bearer tok-1" || h.Get("DPoP") != "" {
		t.Errorf("Authorization %q, DPoP %q: want Bearer tok-1 and no proof", h.Get("Authorization"), h.Get("DPoP"))
	}
}

// nonceServer answers 401 use_dpop_nonce, with a new nonce each time, to
// the first asks requests; later ones 200. It counts requests, and keeps
// the nonce each proof carried.
func nonceServer(asks int, challenge string) (*dpopCounter, func() []string) {
	var n atomic.Int64
	c := &dpopCounter{}
	c.handler = func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if i := n.Add(1); int(i) <= asks {
			w.Header().Set("WWW-Authenticate", challenge)
			w.Header().Set("DPoP-Nonce", fmt.Sprintf("rs-nonce-%d", i))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("DPoP-Nonce", "rs-nonce-latest") // a nonce may come with any answer
	}
	nonces := func() []string {
		var out []string
		for _, h := range c.headers() {
			p, _ := dpop.Parse(h.Get("DPoP"))
			if p == nil {
				out = append(out, "no proof")
				continue
			}
			out = append(out, p.Nonce)
		}
		return out
	}
	return c, nonces
}

// The resource server's nonce at its edge: no demand, one request; one
// demand, the retry carries the nonce and passes; two, the retry is the
// last request and its refusal is handed back. A 401 that is not
// use_dpop_nonce, or gives no nonce, is not retried. The nonce a server
// sends with any answer goes in the next proof.
func TestDPoPResourceNonceAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	const ask = `DPoP error="use_dpop_nonce", error_description="nonce required"`
	for _, tc := range []struct {
		name      string
		asks      int
		challenge string
		status    int
		nonces    []string // the nonce of each request's proof
	}{
		{"none", 0, ask, 200, []string{""}},
		{"one", 1, ask, 200, []string{"", "rs-nonce-1"}},
		{"two", 2, ask, 401, []string{"", "rs-nonce-1"}},
		{"another error", 1, `DPoP error="invalid_token"`, 401, []string{""}},
		{"Bearer challenge", 1, `Bearer error="use_dpop_nonce"`, 401, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvH, nonces := nonceServer(tc.asks, tc.challenge)
			srv := httptest.NewServer(srvH)
			t.Cleanup(srv.Close)
			origin, _ := auth.ParseOrigin(srv.URL)
			c := &http.Client{Transport: auth.NewRoundTripper(nil, origin, dpopSource(t, newTokenEndpoint(t, "DPoP", 0), newKey(t)))}
			resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if diff := cmp.Diff(tc.nonces, nonces()); diff != "" {
				t.Errorf("nonces of the proofs mismatch (-want +got):\n%s", diff)
			}
			if tc.status == 200 {
				resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader("{}"))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := nonces(); got[len(got)-1] != "rs-nonce-latest" {
					t.Errorf("the next proof carried nonce %q, want the one the last answer gave", got[len(got)-1])
				}
			}
		})
	}
}

// A request whose body cannot be read again is not sent again.
func TestDPoPNoRetryWithoutGetBody(t *testing.T) {
	leakcheck.Check(t)
	srvH, nonces := nonceServer(1, `DPoP error="use_dpop_nonce"`)
	srv := httptest.NewServer(srvH)
	t.Cleanup(srv.Close)
	origin, _ := auth.ParseOrigin(srv.URL)
	rt := auth.NewRoundTripper(nil, origin, dpopSource(t, newTokenEndpoint(t, "DPoP", 0), newKey(t)))
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", io.NopCloser(strings.NewReader("{}")))
	req.GetBody = nil
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(nonces()) != 1 {
		t.Errorf("status %d after %d requests, want the 401 after 1", resp.StatusCode, len(nonces()))
	}
}

// nonceMCPServer is a go-sdk MCP server whose tool "act" counts its
// executions, behind a gate that answers the first asks POSTs of a
// tools/call 401 use_dpop_nonce (each with a new nonce), counting every
// POST of a tools/call.
type nonceMCPServer struct {
	url        string
	executions atomic.Int64
	callPOSTs  atomic.Int64
}

func newNonceMCPServer(t *testing.T, asks int64) *nonceMCPServer {
	t.Helper()
	s := &nonceMCPServer{}
	ms := mcp.NewServer(&mcp.Implementation{Name: "nonce", Version: "v1"}, nil)
	mcp.AddTool(ms, &mcp.Tool{Name: "act"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		s.executions.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if r.Method == "POST" && strings.Contains(string(body), `"tools/call"`) {
			if n := s.callPOSTs.Add(1); n <= asks {
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
				w.Header().Set("DPoP-Nonce", fmt.Sprintf("n-%d", n))
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/mcp"
	return s
}

// Through the client: a tools/call refused 401 use_dpop_nonce before it ran
// is sent again once with the nonce and runs once; refused again, the
// call fails as an auth failure wrapping ErrDPoP, its outcome known, having
// run zero times and been POSTed exactly twice.
func TestDPoPNonceRetryOfACall(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		asks, posts, runs int64
	}{{1, 2, 1}, {2, 2, 0}, {3, 2, 0}} {
		t.Run(fmt.Sprint(tc.asks), func(t *testing.T) {
			s := newNonceMCPServer(t, tc.asks)
			f, err := streamablehttp.New(s.url, &streamablehttp.Options{Credentials: dpopSource(t, newTokenEndpoint(t, "DPoP", 0), newKey(t))})
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.Connect(t.Context(), client.Definition{Name: "nonce", Transport: f}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.CallTool(t.Context(), "act", map[string]any{})
			var ce *client.Error
			switch {
			case tc.runs == 1 && err != nil:
				t.Fatalf("CallTool: %v", err)
			case tc.runs == 0 && (!errors.Is(err, auth.ErrDPoP) || !errors.As(err, &ce) || ce.Class != client.ClassAuth || errors.Is(err, client.ErrOutcomeUnknown)):
				t.Fatalf("CallTool error = %v, want ClassAuth wrapping auth.ErrDPoP, outcome known", err)
			}
			if got := s.callPOSTs.Load(); got != tc.posts {
				t.Errorf("the call was POSTed %d times, want %d", got, tc.posts)
			}
			if got := s.executions.Load(); got != tc.runs {
				t.Errorf("the tool ran %d times, want %d", got, tc.runs)
			}
		})
	}
}

// A DPoP-bound Token prints as any Token, its key with it nowhere.
func TestDPoPBoundTokenPrintsRedacted(t *testing.T) {
	leakcheck.Check(t)
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	key, err := auth.NewDPoPKey(k)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := dpopSource(t, newTokenEndpoint(t, "DPoP", 0), key).Credential(t.Context(), httptest.NewRequest("POST", "http://mcp.example/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	type holder struct{ tok auth.Token }
	raw, err := k.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	scalar := new(big.Int).SetBytes(raw)
	d := scalar.String()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%d"} {
		for _, v := range []any{tok, holder{tok}, &holder{tok}} {
			if got := fmt.Sprintf(verb, v); strings.Contains(got, d) || strings.Contains(got, fmt.Sprintf("%x", scalar.Bytes())) || strings.Contains(got, "tok-1") {
				t.Errorf("Sprintf(%s, %T) = %q reveals the key or the token", verb, v, got)
			}
		}
	}
}

type opaqueSigner struct{ crypto.Signer }

func TestNewDPoPKey(t *testing.T) {
	leakcheck.Check(t)
	if k, err := auth.NewDPoPKey(nil); err != nil || k.IsZero() {
		t.Errorf("NewDPoPKey(nil) = %v, %v: want a fresh key", k, err)
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := auth.NewDPoPKey(opaqueSigner{ec}); !errors.Is(err, auth.ErrDPoP) {
		t.Errorf("an unsupported signer: %v, want ErrDPoP", err)
	}
	if !(auth.DPoPKey{}).IsZero() {
		t.Error("the zero DPoPKey is not IsZero")
	}
	base := &http.Client{Timeout: 7 * time.Second}
	if c := newKey(t).Client(base); c.Timeout != base.Timeout || c == base || base.Transport != nil {
		t.Error("Client does not keep base's settings on a copy")
	}
}

// Each request's proof names its own method (htm) and URL (htu: scheme,
// host, port and path, no query or fragment): a GET and a DELETE, which
// the Streamable HTTP transport sends for its stream and its session's
// end, as well as a POST. A proof always made for POST, or for another
// URL, fails here.
func TestDPoPProofMethodAndURI(t *testing.T) {
	leakcheck.Check(t)
	home := &dpopCounter{}
	srv := httptest.NewServer(home)
	t.Cleanup(srv.Close)
	origin, _ := auth.ParseOrigin(srv.URL)
	te := newTokenEndpoint(t, "DPoP", 0)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: auth.NewRoundTripper(tr, origin, dpopSource(t, te, newKey(t)))}
	type claim struct{ Method, URI string }
	var want, got []claim
	for _, tc := range []struct{ method, path string }{
		{"GET", "/mcp?session=1"}, {"DELETE", "/mcp/d#f"}, {"POST", "/mcp/p"}, {"GET", "/g"}, {"DELETE", "/"},
	} {
		req, _ := http.NewRequestWithContext(testkit.Context(t), tc.method, srv.URL+tc.path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		resp.Body.Close()
		u := strings.SplitN(strings.SplitN(srv.URL+tc.path, "?", 2)[0], "#", 2)[0]
		want = append(want, claim{tc.method, u})
	}
	for i, h := range home.headers() {
		p, err := dpop.Parse(h.Get("DPoP"))
		if err != nil {
			t.Fatalf("request %d: proof: %v", i, err)
		}
		got = append(got, claim{p.Method, p.URI})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("proofs' htm and htu (-want +got):\n%s", diff)
	}
}
