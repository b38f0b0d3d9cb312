// Package dpop is the one implementation of DPoP proofs (RFC 9449) that
// this module's packages share: auth signs them for a client, mcptest's
// fake authorization server checks them. It holds JWK encoding and
// decoding of public keys (RFC 7517, RFC 8037), their thumbprints
// (RFC 7638), and the proof JWT itself.
package dpop

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"

	"github.com/golang-jwt/jwt/v5"
)

// Type is the typ header of a DPoP proof.
const Type = "dpop+jwt"

// Algorithms are the signature algorithms of the keys this package signs
// and checks proofs with (asymmetric only, as RFC 9449 §11.6 requires).
var Algorithms = []string{"ES256", "ES384", "ES512", "RS256", "EdDSA"}

// Method returns the signing method for key: ES256, ES384 or ES512 for an
// *ecdsa.PrivateKey on P-256, P-384 or P-521, RS256 for an *rsa.PrivateKey,
// EdDSA for an ed25519.PrivateKey.
func Method(key crypto.Signer) (jwt.SigningMethod, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jwt.SigningMethodES256, nil
		case elliptic.P384():
			return jwt.SigningMethodES384, nil
		case elliptic.P521():
			return jwt.SigningMethodES512, nil
		}
	case *rsa.PrivateKey:
		return jwt.SigningMethodRS256, nil
	case ed25519.PrivateKey:
		return jwt.SigningMethodEdDSA, nil
	}
	return nil, fmt.Errorf("unsupported private key %T", key)
}

// Claims are a proof's claims (RFC 9449 §4.2).
type Claims struct {
	ID     string `json:"jti"`
	Method string `json:"htm"`
	URI    string `json:"htu"`
	Issued int64  `json:"iat"`
	// TokenHash is ath, the hash of the access token the proof goes with
	// (requests to a resource server; empty at a token endpoint).
	TokenHash string `json:"ath,omitempty"`
	// Nonce is the server's nonce (RFC 9449 §8, §9), if it gave one.
	Nonce string `json:"nonce,omitempty"`
}

// GetExpirationTime and the other jwt.Claims methods let golang-jwt
// validate what it can; a proof has no exp, nbf, iss, sub or aud.
func (c *Claims) GetExpirationTime() (*jwt.NumericDate, error) { return nil, nil }
func (c *Claims) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (c *Claims) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (c *Claims) GetIssuer() (string, error)                   { return "", nil }
func (c *Claims) GetSubject() (string, error)                  { return "", nil }
func (c *Claims) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

// NewID returns a fresh random proof identifier (jti).
func NewID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Sign returns a proof with claims c, signed with key by method, its
// public key in the jwk header.
func Sign(key crypto.Signer, method jwt.SigningMethod, c *Claims) (string, error) {
	jwk, err := JWK(key.Public())
	if err != nil {
		return "", err
	}
	t := jwt.NewWithClaims(method, c)
	t.Header["typ"] = Type
	t.Header["jwk"] = jwk
	return t.SignedString(key)
}

// TokenHash returns ath for an access token: the base64url SHA-256 of its
// ASCII bytes.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// URI returns htu for a request to u: u without its query and fragment
// (RFC 9449 §4.2), and without user information.
func URI(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// A Proof is a checked proof: its signature verified with the public key
// of its jwk header, whose thumbprint is Thumbprint.
type Proof struct {
	Claims
	Thumbprint string
}

// ErrInvalid is wrapped by every error of Parse.
var ErrInvalid = errors.New("invalid DPoP proof")

// Parse checks a proof's form and signature (RFC 9449 §4.3, steps 1 to 6:
// one well-formed JWT, typ dpop+jwt, an asymmetric algorithm, a public
// jwk that verifies the signature) and that it has jti, htm, htu and iat.
// What depends on the request (htm, htu, iat's window, ath, the nonce, a
// replayed jti) is the caller's to check.
func Parse(proof string) (*Proof, error) {
	var p Proof
	var pub crypto.PublicKey
	_, err := jwt.ParseWithClaims(proof, &p.Claims, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); typ != Type {
			return nil, fmt.Errorf("typ %q, want %s", typ, Type)
		}
		jwk, ok := t.Header["jwk"].(map[string]any)
		if !ok {
			return nil, errors.New("no jwk header")
		}
		k, err := ParseJWK(jwk)
		if err != nil {
			return nil, err
		}
		pub = k
		return k, nil
	}, jwt.WithValidMethods(Algorithms))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	switch {
	case p.ID == "":
		return nil, fmt.Errorf("%w: no jti", ErrInvalid)
	case p.Method == "" || p.URI == "":
		return nil, fmt.Errorf("%w: no htm or htu", ErrInvalid)
	case p.Issued == 0:
		return nil, fmt.Errorf("%w: no iat", ErrInvalid)
	}
	if p.Thumbprint, err = Thumbprint(pub); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return &p, nil
}

// JWK returns the public JWK of pub, with only its required members.
func JWK(pub crypto.PublicKey) (map[string]any, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		// Bytes is the uncompressed point: 0x04, then X and Y at the curve's size.
		point, err := k.Bytes()
		if err != nil {
			return nil, fmt.Errorf("ecdsa public key: %w", err)
		}
		size := (len(point) - 1) / 2
		return map[string]any{"kty": "EC", "crv": k.Curve.Params().Name,
			"x": b64(point[1 : 1+size]), "y": b64(point[1+size:])}, nil
	case *rsa.PublicKey:
		return map[string]any{"kty": "RSA", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}, nil
	case ed25519.PublicKey:
		return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(k)}, nil
	}
	return nil, fmt.Errorf("unsupported public key %T", pub)
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of pub, base64url:
// the value of a DPoP-bound token's cnf.jkt.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	jwk, err := JWK(pub)
	if err != nil {
		return "", err
	}
	// encoding/json writes map keys sorted and no whitespace: the
	// canonical form RFC 7638 §3 asks for.
	data, err := json.Marshal(jwk)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// ParseJWK returns the public key of a JWK: EC on P-256, P-384 or P-521,
// RSA, or OKP Ed25519. A JWK holding a private key ("d") is refused.
func ParseJWK(jwk map[string]any) (crypto.PublicKey, error) {
	str := func(name string) ([]byte, error) {
		s, _ := jwk[name].(string)
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("jwk member %q missing or not base64url", name)
		}
		return b, nil
	}
	if _, ok := jwk["d"]; ok {
		return nil, errors.New("jwk holds a private key")
	}
	switch jwk["kty"] {
	case "EC":
		return parseEC(jwk, str)
	case "RSA":
		n, err := str("n")
		if err != nil {
			return nil, err
		}
		e, err := str("e")
		if err != nil || len(e) > 4 {
			return nil, errors.New("jwk member \"e\" missing or too large")
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
	case "OKP":
		x, err := str("x")
		if err != nil || jwk["crv"] != "Ed25519" || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("jwk is not an Ed25519 public key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("jwk kty %v not supported", jwk["kty"])
}

func parseEC(jwk map[string]any, str func(string) ([]byte, error)) (crypto.PublicKey, error) {
	var curve elliptic.Curve
	switch jwk["crv"] {
	case "P-256":
		curve = elliptic.P256()
	case "P-384":
		curve = elliptic.P384()
	case "P-521":
		curve = elliptic.P521()
	default:
		return nil, fmt.Errorf("jwk crv %v not supported", jwk["crv"])
	}
	x, err := str("x")
	if err != nil {
		return nil, err
	}
	y, err := str("y")
	if err != nil {
		return nil, err
	}
	size := (curve.Params().BitSize + 7) / 8
	point := append([]byte{4}, coordinate(x, size)...)
	point = append(point, coordinate(y, size)...)
	k, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil {
		return nil, fmt.Errorf("jwk is not a point of %s: %w", curve.Params().Name, err)
	}
	return k, nil
}

// coordinate returns b as a big-endian number of size bytes: leading zeros
// are dropped, a shorter b is padded. A number too large for size is
// returned as it is, and the point it is part of fails to parse.
func coordinate(b []byte, size int) []byte {
	b = bytes.TrimLeft(b, "\x00")
	if len(b) >= size {
		return b
	}
	return append(make([]byte, size-len(b)), b...)
}
