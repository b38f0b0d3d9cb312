package auth

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// ErrNotMarshalable is returned when a [Token] or [Secret] is handed to an
// encoder (encoding/json, encoding.TextMarshaler, encoding/gob,
// encoding.BinaryMarshaler): a credential is never serialised. Encoders wrap
// it, so test with errors.Is.
var ErrNotMarshalable = errors.New("auth: credential is not marshalable")

// The redactions fmt, slog and String print in place of a value.
const (
	tokenRedacted  = "auth.Token(REDACTED)"
	secretRedacted = "auth.Secret(REDACTED)"
)

// A Token is a bearer credential: the value sent in an Authorization header.
// Its value is reachable only through [Token.Reveal]. Printing it with any
// fmt verb, logging it with slog, or encoding it with json, text, binary or
// gob never shows the value. Encoding fails with [ErrNotMarshalable].
//
// The value lives behind a pointer, so even fmt's reflection on an
// unexported struct field (which bypasses the methods) prints an address,
// never the value. The zero Token is empty.
//
// A Token a source obtained as DPoP-bound (see [DPoPKey]) carries its key:
// [NewRoundTripper] sends it as "Authorization: DPoP …" with a proof.
type Token struct {
	v   *string
	key *dpopKey // the key a DPoP-bound token is bound to; nil for a bearer token
}

// NewToken returns a bearer Token holding v.
func NewToken(v string) Token { return Token{v: &v} }

// boundToken returns a Token holding v, bound to key (a bearer token if
// key is nil).
func boundToken(v string, key *dpopKey) Token { return Token{v: &v, key: key} }

// Reveal returns the token's value. Call it only where the value must leave
// the process (the Authorization header of a request to a validated origin).
func (t Token) Reveal() string {
	if t.v == nil {
		return ""
	}
	return *t.v
}

// IsZero reports whether the token is empty.
func (t Token) IsZero() bool { return t.Reveal() == "" }

// String returns a redaction.
func (Token) String() string { return tokenRedacted }

// GoString returns a redaction (for %#v).
func (Token) GoString() string { return tokenRedacted }

// Format prints a redaction for every verb.
func (Token) Format(f fmt.State, verb rune) { format(f, verb, tokenRedacted) }

// LogValue returns a redaction for log/slog.
func (Token) LogValue() slog.Value { return slog.StringValue(tokenRedacted) }

// MarshalJSON fails with [ErrNotMarshalable].
func (Token) MarshalJSON() ([]byte, error) { return nil, notMarshalable("Token", "json") }

// MarshalText fails with [ErrNotMarshalable].
func (Token) MarshalText() ([]byte, error) { return nil, notMarshalable("Token", "text") }

// MarshalBinary fails with [ErrNotMarshalable].
func (Token) MarshalBinary() ([]byte, error) { return nil, notMarshalable("Token", "binary") }

// GobEncode fails with [ErrNotMarshalable].
func (Token) GobEncode() ([]byte, error) { return nil, notMarshalable("Token", "gob") }

// A Secret is any other confidential value: an OAuth client secret, a
// password, a signing key. It behaves exactly like [Token]: the value is
// reachable only through [Secret.Reveal], and printing or encoding never
// shows it.
type Secret struct{ v *string }

// NewSecret returns a Secret holding v.
func NewSecret(v string) Secret { return Secret{v: &v} }

// Reveal returns the secret's value.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String returns a redaction.
func (Secret) String() string { return secretRedacted }

// GoString returns a redaction (for %#v).
func (Secret) GoString() string { return secretRedacted }

// Format prints a redaction for every verb.
func (Secret) Format(f fmt.State, verb rune) { format(f, verb, secretRedacted) }

// LogValue returns a redaction for log/slog.
func (Secret) LogValue() slog.Value { return slog.StringValue(secretRedacted) }

// MarshalJSON fails with [ErrNotMarshalable].
func (Secret) MarshalJSON() ([]byte, error) { return nil, notMarshalable("Secret", "json") }

// MarshalText fails with [ErrNotMarshalable].
func (Secret) MarshalText() ([]byte, error) { return nil, notMarshalable("Secret", "text") }

// MarshalBinary fails with [ErrNotMarshalable].
func (Secret) MarshalBinary() ([]byte, error) { return nil, notMarshalable("Secret", "binary") }

// GobEncode fails with [ErrNotMarshalable].
func (Secret) GobEncode() ([]byte, error) { return nil, notMarshalable("Secret", "gob") }

func format(f fmt.State, verb rune, redacted string) {
	if verb == 'q' {
		io.WriteString(f, strconv.Quote(redacted))
		return
	}
	io.WriteString(f, redacted)
}

func notMarshalable(typ, enc string) error {
	return fmt.Errorf("auth.%s: %s encoding: %w", typ, enc, ErrNotMarshalable)
}
