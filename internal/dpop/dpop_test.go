package dpop_test

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
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

// The thumbprint of RFC 9449's example EC key is the jkt the RFC gives.
func TestThumbprintRFC9449(t *testing.T) {
	pub, err := dpop.ParseJWK(map[string]any{
		"kty": "EC",
		"crv": "P-256",
		"x":   "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
		"y":   "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dpop.Thumbprint(pub)
	if err != nil {
		t.Fatal(err)
	}
	if want := "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"; got != want {
		t.Errorf("Thumbprint = %s, want %s", got, want)
	}
}

// pointWithZeroX returns the uncompressed P-256 point of the smallest
// scalar whose X starts with a zero byte.
func pointWithZeroX(t *testing.T) []byte {
	t.Helper()
	scalar := make([]byte, 32)
	for i := 1; i < 1<<16; i++ {
		scalar[30], scalar[31] = byte(i>>8), byte(i)
		k, err := ecdh.P256().NewPrivateKey(scalar)
		if err != nil {
			t.Fatal(err)
		}
		if p := k.PublicKey().Bytes(); p[1] == 0 {
			return p
		}
	}
	t.Fatal("no P-256 point with a zero first byte of X")
	return nil
}

// An EC coordinate is read as a number: a JWK that drops X's leading zero
// byte, or adds one, gives the same key, and the JWK written back has X at
// the curve's full size. One byte more than the curve's size, or a point
// off the curve, is refused.
func TestParseJWKCoordinates(t *testing.T) {
	point := pointWithZeroX(t)
	b64 := base64.RawURLEncoding.EncodeToString
	x, y := point[1:33], point[33:]
	jwk := func(x, y []byte) map[string]any {
		return map[string]any{"kty": "EC", "crv": "P-256", "x": b64(x), "y": b64(y)}
	}
	want := map[string]any{"kty": "EC", "crv": "P-256", "x": b64(x), "y": b64(y)}
	for name, in := range map[string]map[string]any{
		"full size":         jwk(x, y),
		"leading zero cut":  jwk(x[1:], y),
		"leading zero more": jwk(append([]byte{0}, x...), y),
	} {
		pub, err := dpop.ParseJWK(in)
		if err != nil {
			t.Errorf("%s: ParseJWK: %v", name, err)
			continue
		}
		got, err := dpop.JWK(pub)
		if err != nil {
			t.Errorf("%s: JWK: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: JWK mismatch (-want +got):\n%s", name, diff)
		}
	}
	offCurve := bytes.Clone(y)
	offCurve[31] ^= 1
	for name, in := range map[string]map[string]any{
		"x one byte too long": jwk(append([]byte{1}, x...), y),
		"off the curve":       jwk(x, offCurve),
	} {
		if _, err := dpop.ParseJWK(in); err == nil || !strings.Contains(err.Error(), "jwk is not a point of P-256") {
			t.Errorf("%s: ParseJWK error = %v, want jwk is not a point of P-256", name, err)
		}
	}
}
