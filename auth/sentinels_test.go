package auth_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32). Which source failed is in the error's text; a
// configuration a constructor cannot use matches ErrInvalidArgument.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{
		"ErrDPoP", "ErrInvalidArgument", "ErrInvalidOrigin", "ErrIssuerMismatch",
		"ErrNoCredential", "ErrNotMarshalable", "ErrTokenType", "ErrTooManyScopes",
	}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}

// fromSource reports whether err is an error of the source whose errors'
// text starts with kind ("auth: client credentials: ").
func fromSource(err error, kind string) bool {
	return err != nil && strings.Contains(err.Error(), kind)
}
