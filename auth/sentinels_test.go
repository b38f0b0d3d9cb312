package auth_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32). Which source failed is in the error's text; a
// configuration a constructor cannot use matches ErrInvalidArgument.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{
		"ErrDPoP", "ErrInvalidArgument", "ErrNoCredential", "ErrNotMarshalable",
	}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}

// refusal stands for a *PolicyError of rule r in a test's table.
func refusal(r auth.PolicyRule) error { return &auth.PolicyError{Rule: r, Err: errors.New("any")} }

// refusedBy reports whether err is a *PolicyError of rule r.
func refusedBy(err error, r auth.PolicyRule) bool {
	pe, ok := errors.AsType[*auth.PolicyError](err)
	return ok && pe.Rule == r
}

// matches reports whether err matches want: a refusal's rule, or
// errors.Is.
func matches(err, want error) bool {
	if pe, ok := want.(*auth.PolicyError); ok {
		return refusedBy(err, pe.Rule)
	}
	return errors.Is(err, want)
}

// fromSource reports whether err is an error of the source whose errors'
// text starts with kind ("auth: client credentials: ").
func fromSource(err error, kind string) bool {
	return err != nil && strings.Contains(err.Error(), kind)
}

// TestPolicyRules: each rule's error starts with the text its sentinel
// had, and matches its own rule only.
func TestPolicyRules(t *testing.T) {
	leakcheck.Check(t)
	rules := map[auth.PolicyRule]string{
		auth.RuleIssuer:    "auth: authorization server is not the configured issuer: x",
		auth.RuleTokenType: "auth: unsupported token type: x",
		auth.RuleScopes:    "auth: too many scopes: x",
	}
	for r, text := range rules {
		err := fmt.Errorf("auth: client credentials: %w", &auth.PolicyError{Rule: r, Err: errors.New("x")})
		if got := err.Error(); got != "auth: client credentials: "+text {
			t.Errorf("rule %d: text %q, want %q", r, got, text)
		}
		for other := range rules {
			if refusedBy(err, other) != (other == r) {
				t.Errorf("rule %d: refusedBy(%v) = %v", r, other, other != r)
			}
		}
	}
}
