package auth_test

import (
	"bytes"
	"encoding"
	"encoding/gob"
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
	}
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
				if bytes.Contains(out, []byte(value)) {
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
					if strings.Contains(got, value) || !strings.Contains(got, "REDACTED") {
						t.Errorf("Sprintf(%s, %T) = %q, want a redaction", verb, nested, got)
					}
				}
				// fmt cannot call methods on an unexported field; the value
				// sits behind a pointer, so it prints an address.
				if got := fmt.Sprintf(verb, unexported{c.v}); strings.Contains(got, value) {
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
	}
	c := config{"x", auth.NewToken(value), auth.NewSecret(value)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if got := fmt.Sprintf(verb, c); strings.Contains(got, value) {
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
		if strings.Contains(b.String(), value) {
			t.Errorf("%s: slog output reveals the value:\n%s", c.name, b.String())
		}
		if !strings.Contains(b.String(), c.redacted) {
			t.Errorf("%s: slog output has no redaction:\n%s", c.name, b.String())
		}
	}
}
