package auth

import "fmt"

// A PolicyError is this package's refusal of what an authorization server
// or a resource server gave. Rule says which rule refused it. No token is
// sent for it.
type PolicyError struct {
	Rule PolicyRule // the rule that refused
	Err  error      // the details, after the rule in the text
}

func (e *PolicyError) Error() string { return e.Rule.String() + ": " + e.Err.Error() }

// Unwrap returns the details.
func (e *PolicyError) Unwrap() error { return e.Err }

// PolicyRule names a rule of a PolicyError.
type PolicyRule int

const (
	// RuleIssuer refuses discovery that leads to an authorization server
	// other than the configured Issuer.
	RuleIssuer PolicyRule = iota + 1
	// RuleTokenType refuses an access token whose token_type is neither
	// Bearer nor, for a client holding a DPoP key, DPoP. The type is
	// compared without regard to case. An empty token_type is Bearer, as
	// golang.org/x/oauth2 reads it.
	RuleTokenType
	// RuleScopes refuses a challenge that would bring the scopes asked for
	// beyond [MaxScopes].
	RuleScopes
)

var policyRules = [...]string{
	RuleIssuer:    "auth: authorization server is not the configured issuer",
	RuleTokenType: "auth: unsupported token type",
	RuleScopes:    "auth: too many scopes",
}

// String returns the rule as the error's text starts.
func (r PolicyRule) String() string {
	if r > 0 && int(r) < len(policyRules) {
		return policyRules[r]
	}
	return "auth: refused"
}

// refused returns a *PolicyError for r whose details format makes.
func refused(r PolicyRule, format string, args ...any) error {
	return &PolicyError{Rule: r, Err: fmt.Errorf(format, args...)}
}
