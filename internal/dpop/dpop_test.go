package dpop_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/dpop"
)

// The thumbprint of RFC 7638 §3.1's example key.
func TestThumbprintRFC7638(t *testing.T) {
	pub, err := dpop.ParseJWK(map[string]any{
		"kty": "RSA",
		"n":   "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
		"e":   "AQAB",
		"alg": "RS256",
		"kid": "2011-04-29",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dpop.Thumbprint(pub)
	if err != nil {
		t.Fatal(err)
	}
	if want := "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"; got != want {
		t.Errorf("Thumbprint = %s, want %s", got, want)
	}
}

func keys(t *testing.T) map[string]crypto.Signer {
	t.Helper()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	return map[string]crypto.Signer{"ES256": p256, "ES384": p384, "ES512": p521, "RS256": rk, "EdDSA": ed}
}

// A proof signed with each supported key parses back to its claims, and
// its thumbprint is the key's; the JWK round-trips.
func TestSignParse(t *testing.T) {
	for alg, key := range keys(t) {
		t.Run(alg, func(t *testing.T) {
			m, err := dpop.Method(key)
			if err != nil || m.Alg() != alg {
				t.Fatalf("Method = %v, %v; want %s", m, err, alg)
			}
			c := &dpop.Claims{ID: "j1", Method: "POST", URI: "https://mcp.example/mcp", Issued: 1700000000, TokenHash: dpop.TokenHash("tok"), Nonce: "n1"}
			proof, err := dpop.Sign(key, m, c)
			if err != nil {
				t.Fatal(err)
			}
			p, err := dpop.Parse(proof)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*c, p.Claims); diff != "" {
				t.Errorf("claims mismatch (-want +got):\n%s", diff)
			}
			want, _ := dpop.Thumbprint(key.Public())
			if p.Thumbprint != want {
				t.Errorf("thumbprint %s, want %s", p.Thumbprint, want)
			}
			jwk, _ := dpop.JWK(key.Public())
			back, err := dpop.ParseJWK(jwk)
			if err != nil {
				t.Fatal(err)
			}
			if tb, _ := dpop.Thumbprint(back); tb != want {
				t.Errorf("JWK round trip changed the thumbprint")
			}
		})
	}
}

// Every form rule refuses its proof with ErrInvalid.
func TestParseRefuses(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := dpop.Claims{ID: "j", Method: "POST", URI: "https://a/b", Issued: 1}
	sign := func(header map[string]any, c dpop.Claims, with crypto.Signer) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, &c)
		for k, v := range header {
			tok.Header[k] = v
		}
		s, err := tok.SignedString(with)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	jwk, _ := dpop.JWK(key.Public())
	withD := map[string]any{"d": "AAAA"}
	for k, v := range jwk {
		withD[k] = v
	}
	hdr := map[string]any{"typ": dpop.Type, "jwk": jwk}
	noID, noIat := good, good
	noID.ID, noIat.Issued = "", 0
	hmac, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, &good).SignedString([]byte("k"))
	for name, proof := range map[string]string{
		"not a JWT":       "a.b.c",
		"wrong typ":       sign(map[string]any{"typ": "JWT", "jwk": jwk}, good, key),
		"no jwk":          sign(map[string]any{"typ": dpop.Type}, good, key),
		"private jwk":     sign(map[string]any{"typ": dpop.Type, "jwk": withD}, good, key),
		"other key":       sign(hdr, good, other),
		"symmetric":       hmac,
		"no jti":          sign(hdr, noID, key),
		"no iat":          sign(hdr, noIat, key),
		"two proofs":      sign(hdr, good, key) + "," + sign(hdr, good, key),
		"tampered claims": tamper(sign(hdr, good, key)),
	} {
		if _, err := dpop.Parse(proof); !errors.Is(err, dpop.ErrInvalid) {
			t.Errorf("%s: Parse error = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := dpop.Parse(sign(hdr, good, key)); err != nil {
		t.Errorf("the untouched proof: %v", err)
	}
}

func tamper(jws string) string {
	parts := strings.Split(jws, ".")
	parts[1] = parts[1][:len(parts[1])-2] + "AA"
	return strings.Join(parts, ".")
}

func TestURI(t *testing.T) {
	u, _ := url.Parse("https://user:pw@MCP.example:8443/mcp/x?a=1#frag")
	if got, want := dpop.URI(u), "https://MCP.example:8443/mcp/x"; got != want {
		t.Errorf("URI = %s, want %s", got, want)
	}
}
