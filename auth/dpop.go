package auth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/looprig/mcp/internal/dpop"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ErrDPoP is wrapped by every DPoP error. One is a key that cannot sign
// proofs (from [NewDPoPKey]). One is a proof that could not be signed. One
// is a server that refused a request for want of a nonce again, after the
// one retry with the nonce it gave.
var ErrDPoP = errors.New("auth: DPoP")

const dpopKeyRedacted = "auth.DPoPKey(REDACTED)"

// A DPoPKey is the private key a client proves possession of with DPoP
// (RFC 9449, the MCP extension io.modelcontextprotocol/auth/dpop,
// SEP-1932). The access tokens issued to the client are bound to it, so a
// token that leaks is useless without the key.
//
// Give a source's token requests the key's HTTP client ([DPoPKey.Client]).
// That is the HTTPClient of [ClientCredentialsConfig],
// [WorkloadIdentityConfig] and [EnterpriseConfig]. For
// [NewAuthorizationCode] it is the Client of the go-sdk's authorization
// code handler. Each token request then carries a proof. The authorization
// server may issue a token as DPoP-bound (token_type DPoP). That token is
// sent to the MCP server as "Authorization: DPoP …", with a fresh proof of
// its own in the DPoP header. It is sent so for each request, to the
// validated origin only. A token issued as Bearer (an authorization server
// that does not support DPoP) is sent as a bearer token, as RFC 9449 §5
// lets a client do.
//
// Like [Secret], a DPoPKey never shows its key: printing it with any fmt
// verb or slog shows a redaction, and encoding it fails with
// [ErrNotMarshalable]. The key lives behind a pointer. The zero DPoPKey has
// no key. It is safe for concurrent use; it remembers the nonce each
// server gave it (RFC 9449 §8, §9) for the next proof to that server.
type DPoPKey struct{ k *dpopKey }

type dpopKey struct {
	// signer returns the private key. A function, so that fmt, printing a
	// dpopKey through reflection (a bad verb on an unexported field
	// prints the struct a pointer points to), shows an address and never
	// the key.
	signer func() crypto.Signer
	method jwt.SigningMethod
	now    func() time.Time

	mu     sync.Mutex        // guards nonces
	nonces map[Origin]string // the last nonce each server gave
}

// NewDPoPKey returns a DPoPKey signing proofs with key: ES256, ES384 or
// ES512 for an *ecdsa.PrivateKey on P-256, P-384 or P-521, RS256 for an
// *rsa.PrivateKey, EdDSA for an ed25519.PrivateKey (see
// [ParsePrivateKey]). A nil key means a fresh P-256 key (ES256), held in
// memory only: the tokens bound to it die with the process, which is what
// a CI job wants.
func NewDPoPKey(key crypto.Signer) (DPoPKey, error) {
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return DPoPKey{}, fmt.Errorf("%w: generating a key: %w", ErrDPoP, err)
		}
		key = k
	}
	m, err := dpop.Method(key)
	if err != nil {
		return DPoPKey{}, fmt.Errorf("%w: %w", ErrDPoP, err)
	}
	return DPoPKey{&dpopKey{signer: func() crypto.Signer { return key }, method: m, now: time.Now, nonces: map[Origin]string{}}}, nil
}

// IsZero reports whether the key is the zero DPoPKey.
func (k DPoPKey) IsZero() bool { return k.k == nil }

// Client returns an HTTP client for a source's token requests. It has
// base's settings (nil means a client with a 30-second timeout) except
// CheckRedirect, which is [CheckRedirect]. Its transport applies that rule
// too, whatever CheckRedirect the client is later given. The transport
// adds a proof of this key to each token request (a form POST with a
// grant_type). The authorization server may ask for a nonce (an answer
// use_dpop_nonce with a DPoP-Nonce header). The transport then retries the
// request with that nonce, once. Other requests (metadata, registration)
// go as they are. On the zero DPoPKey, the client's transport sends
// nothing. It fails every request with [ErrInvalidArgument], so no token
// request goes without a proof.
func (k DPoPKey) Client(base *http.Client) *http.Client {
	c := &http.Client{Timeout: 30 * time.Second}
	if base != nil {
		c2 := *base
		c = &c2
	}
	if k.k == nil {
		c.Transport = invalidTransport{fmt.Errorf("%w: auth.DPoPKey.Client: k is the zero DPoPKey", ErrInvalidArgument)}
		return c
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &dpopTransport{key: k.k, base: rt}
	c.CheckRedirect = CheckRedirect
	return c
}

// String returns a redaction.
func (DPoPKey) String() string { return dpopKeyRedacted }

// GoString returns a redaction (for %#v).
func (DPoPKey) GoString() string { return dpopKeyRedacted }

// Format prints a redaction for every verb.
func (DPoPKey) Format(f fmt.State, verb rune) { format(f, verb, dpopKeyRedacted) }

// LogValue returns a redaction for log/slog.
func (DPoPKey) LogValue() slog.Value { return slog.StringValue(dpopKeyRedacted) }

// MarshalJSON fails with [ErrNotMarshalable].
func (DPoPKey) MarshalJSON() ([]byte, error) { return nil, notMarshalable("DPoPKey", "json") }

// MarshalText fails with [ErrNotMarshalable].
func (DPoPKey) MarshalText() ([]byte, error) { return nil, notMarshalable("DPoPKey", "text") }

// MarshalBinary fails with [ErrNotMarshalable].
func (DPoPKey) MarshalBinary() ([]byte, error) { return nil, notMarshalable("DPoPKey", "binary") }

// GobEncode fails with [ErrNotMarshalable].
func (DPoPKey) GobEncode() ([]byte, error) { return nil, notMarshalable("DPoPKey", "gob") }

// dpopKeyOf returns the key of a client made by DPoPKey.Client, or nil.
func dpopKeyOf(c *http.Client) *dpopKey {
	if c == nil {
		return nil
	}
	if t, ok := c.Transport.(*dpopTransport); ok {
		return t.key
	}
	return nil
}

// withoutDPoP returns c without the DPoP transport DPoPKey.Client gave it.
func withoutDPoP(c *http.Client) *http.Client {
	t, ok := c.Transport.(*dpopTransport)
	if !ok {
		return c
	}
	c2 := *c
	c2.Transport = t.base
	return &c2
}

// proof returns a proof for a request of method to u, carrying ath for
// token (if not empty) and the nonce the server last gave, which it
// returns too.
func (k *dpopKey) proof(method string, u *url.URL, token string) (proof, nonce string, err error) {
	jti, err := dpop.NewID()
	if err != nil {
		return "", "", fmt.Errorf("%w: proof id: %w", ErrDPoP, err)
	}
	c := &dpop.Claims{ID: jti, Method: method, URI: dpop.URI(u), Issued: k.now().Unix()}
	if token != "" {
		c.TokenHash = dpop.TokenHash(token)
	}
	if o, err := OriginOf(u); err == nil {
		k.mu.Lock()
		c.Nonce = k.nonces[o]
		k.mu.Unlock()
	}
	p, err := dpop.Sign(k.signer(), k.method, c)
	if err != nil {
		return "", "", fmt.Errorf("%w: signing a proof: %w", ErrDPoP, err)
	}
	return p, c.Nonce, nil
}

// noteNonce keeps the nonce a response of u's server gave (DPoP-Nonce,
// which a server may send with any answer), and returns it ("" when the
// response gave none).
func (k *dpopKey) noteNonce(u *url.URL, resp *http.Response) string {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" {
		return ""
	}
	if o, err := OriginOf(u); err == nil {
		k.mu.Lock()
		k.nonces[o] = n
		k.mu.Unlock()
	}
	return n
}

// dpopTransport adds a proof to each token request a source makes.
type dpopTransport struct {
	key  *dpopKey
	base http.RoundTripper
}

// maxErrorBody bounds the part of a token endpoint's error answer read to
// see whether it asks for a nonce.
const maxErrorBody = 64 << 10

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkRedirected(req); err != nil {
		return nil, err
	}
	if !isTokenRequest(req) {
		return t.base.RoundTrip(req)
	}
	resp, used, err := t.send(req)
	if err != nil {
		return nil, err
	}
	fresh := t.key.noteNonce(req.URL, resp)
	if resp.StatusCode != http.StatusBadRequest || fresh == "" || fresh == used || !asksForNonce(resp) {
		return resp, nil
	}
	drain(resp)
	// The token endpoint refused the request before acting on it and
	// gave a nonce: the request is sent again, once, with it.
	resp, _, err = t.send(req)
	if err != nil {
		return nil, err
	}
	t.key.noteNonce(req.URL, resp)
	return resp, nil
}

// send sends req, its body rewound, with a fresh proof.
func (t *dpopTransport) send(req *http.Request) (*http.Response, string, error) {
	proof, nonce, err := t.key.proof(req.Method, req.URL, "")
	if err != nil {
		return nil, "", err
	}
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		if r.Body, err = req.GetBody(); err != nil {
			return nil, "", fmt.Errorf("%w: token request body: %w", ErrDPoP, err)
		}
	}
	r.Header.Set("DPoP", proof)
	resp, err := t.base.RoundTrip(r)
	return resp, nonce, err
}

// isTokenRequest reports whether req is a token request: a form POST whose
// body (which GetBody gives again) has a grant_type.
func isTokenRequest(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return false
	}
	rc, err := req.GetBody()
	if err != nil {
		return false
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, maxErrorBody))
	if err != nil {
		return false
	}
	v, err := url.ParseQuery(string(body))
	return err == nil && v.Get("grant_type") != ""
}

// asksForNonce reports whether a token endpoint's answer is the OAuth
// error use_dpop_nonce, leaving the body whole for the caller.
func asksForNonce(resp *http.Response) bool {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(data, &e) == nil && e.Error == "use_dpop_nonce"
}

// drain reads what is left of a response (bounded) and closes it, so the
// connection can be used again.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// nonceChallenge reports whether resp is a resource server's refusal for
// want of a nonce: 401 with a DPoP challenge whose error is
// use_dpop_nonce (RFC 9449 §9).
func nonceChallenge(resp *http.Response) bool {
	if resp.StatusCode != http.StatusUnauthorized {
		return false
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// nonceRefused is the error of an Authorizer handed a refusal for want of
// a nonce: the round tripper retried the request once with the server's
// nonce already, and the server refused that too. Running an authorization
// flow would not help; nil when resp is another refusal.
func nonceRefused(req *http.Request, resp *http.Response) error {
	if !nonceChallenge(resp) {
		return nil
	}
	drain(resp)
	return fmt.Errorf("%w: %s refused the proof with the nonce it asked for (use_dpop_nonce again after the retry)", ErrDPoP, originName(req.URL))
}

func originName(u *url.URL) string {
	if o, err := OriginOf(u); err == nil {
		return o.String()
	}
	return strings.SplitN(u.Redacted(), "?", 2)[0]
}
