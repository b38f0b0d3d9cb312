package auth_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding"
	"encoding/base64"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
)

const value = "s3cr3t-value-do-not-print"

// credentials returns one of each credential type holding value, with the
// redaction each prints.
func credentials() []struct {
	name     string
	v        any
	redacted string
} {
	return []struct {
		name     string
		v        any
		redacted string
	}{
		{"Token", auth.NewToken(value), "auth.Token(REDACTED)"},
		{"Secret", auth.NewSecret(value), "auth.Secret(REDACTED)"},
		{"DPoPKey", dpopKey(), "auth.DPoPKey(REDACTED)"},
	}
}

// seed is the private key of dpopKey: value, padded to an Ed25519 seed.
var seed = []byte(value + strings.Repeat("-", ed25519.SeedSize-len(value)))

// dpopKey returns a DPoPKey whose private key is made of value.
func dpopKey() auth.DPoPKey {
	k, err := auth.NewDPoPKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		panic(err)
	}
	return k
}

// leaks reports whether out shows value, or the DPoP key's private bytes
// in any of the forms printing or encoding would give them (text, hex,
// base64, a list of numbers).
func leaks(out string) bool {
	for _, form := range []string{value, hex.EncodeToString(seed), base64.RawURLEncoding.EncodeToString(seed),
		base64.StdEncoding.EncodeToString(seed)[:40], strings.Trim(fmt.Sprint(seed[:8]), "[]")} {
		if strings.Contains(out, form) {
			return true
		}
	}
	return false
}

func TestRevealReturnsTheValue(t *testing.T) {
	leakcheck.Check(t)
	got := []string{auth.NewToken(value).Reveal(), auth.NewSecret(value).Reveal(), auth.Token{}.Reveal()}
	if diff := cmp.Diff([]string{value, value, ""}, got); diff != "" {
		t.Errorf("Reveal() mismatch (-want +got):\n%s", diff)
	}
	if !(auth.Token{}).IsZero() || auth.NewToken(value).IsZero() || !(auth.Secret{}).IsZero() {
		t.Error("IsZero() wrong")
	}
}

// nest returns v as the exported field of a struct of its own type.
func nest(v any) any {
	switch v := v.(type) {
	case auth.Token:
		return struct{ Cred auth.Token }{v}
	case auth.Secret:
		return struct{ Cred auth.Secret }{v}
	case auth.DPoPKey:
		return struct{ Cred auth.DPoPKey }{v}
	}
	panic("unreachable")
}

func TestEncodingRefused(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range credentials() {
		encoders := map[string]func(v any) ([]byte, error){
			"json": json.Marshal,
			"json-nested": func(v any) ([]byte, error) {
				return json.Marshal(nest(v))
			},
			"text": func(v any) ([]byte, error) { return v.(encoding.TextMarshaler).MarshalText() },
			"binary": func(v any) ([]byte, error) {
				return v.(encoding.BinaryMarshaler).MarshalBinary()
			},
			"gob": func(v any) ([]byte, error) {
				var b bytes.Buffer
				err := gob.NewEncoder(&b).Encode(v)
				return b.Bytes(), err
			},
			"gob-nested": func(v any) ([]byte, error) {
				var b bytes.Buffer
				err := gob.NewEncoder(&b).Encode(nest(v))
				return b.Bytes(), err
			},
			"xml": func(v any) ([]byte, error) {
				return xml.Marshal(v)
			},
		}
		for enc, marshal := range encoders {
			t.Run(c.name+"/"+enc, func(t *testing.T) {
				out, err := marshal(c.v)
				if !errors.Is(err, auth.ErrNotMarshalable) {
					t.Errorf("error = %v, want ErrNotMarshalable", err)
				}
				if leaks(string(out)) {
					t.Errorf("output reveals the value: %q", out)
				}
			})
		}
	}
}

func TestPrintingRedacts(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range credentials() {
		type exported struct{ Cred any }
		type unexported struct{ cred any }
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%10s"} {
			t.Run(c.name+"/"+verb, func(t *testing.T) {
				got := fmt.Sprintf(verb, c.v)
				want := c.redacted
				switch verb {
				case "%q":
					want = fmt.Sprintf("%q", c.redacted)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Sprintf(%s) mismatch (-want +got):\n%s", verb, diff)
				}
				for _, nested := range []any{exported{c.v}, &exported{c.v}, []any{c.v}, map[string]any{"k": c.v}} {
					got := fmt.Sprintf(verb, nested)
					if leaks(got) || !strings.Contains(got, "REDACTED") {
						t.Errorf("Sprintf(%s, %T) = %q, want a redaction", verb, nested, got)
					}
				}
				// fmt cannot call methods on an unexported field; the value
				// sits behind a pointer, so it prints an address.
				if got := fmt.Sprintf(verb, unexported{c.v}); leaks(got) {
					t.Errorf("Sprintf(%s, unexported) = %q reveals the value", verb, got)
				}
			})
		}
	}
}

func TestTypedUnexportedFieldDoesNotReveal(t *testing.T) {
	leakcheck.Check(t)
	type config struct {
		name  string
		token auth.Token
		key   auth.Secret
		dpop  auth.DPoPKey
	}
	c := config{"x", auth.NewToken(value), auth.NewSecret(value), dpopKey()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		if got := fmt.Sprintf(verb, c); leaks(got) {
			t.Errorf("Sprintf(%s) = %q reveals the value", verb, got)
		}
	}
}

func TestSlogRedacts(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range credentials() {
		var b bytes.Buffer
		slog.New(slog.NewJSONHandler(&b, nil)).Info("msg", "cred", c.v, "group", struct{ Cred any }{c.v})
		slog.New(slog.NewTextHandler(&b, nil)).Info("msg", "cred", c.v)
		if leaks(b.String()) {
			t.Errorf("%s: slog output reveals the value:\n%s", c.name, b.String())
		}
		if !strings.Contains(b.String(), c.redacted) {
			t.Errorf("%s: slog output has no redaction:\n%s", c.name, b.String())
		}
	}
}
