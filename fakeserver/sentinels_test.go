package fakeserver

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
)

// TestSentinels bounds the package's sentinel errors (issue 32): an
// unknown catalog or revision matches ErrBadCatalog, its text naming
// which, and a bad fault does not.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	if diff := cmp.Diff([]string{"ErrBadCatalog"}, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		opts Options
		text string // the message, unchanged
		bad  bool   // matches ErrBadCatalog
	}{
		{"unknown catalog", Options{Catalog: "huge"}, `fakeserver: unknown catalog "huge" (want one of `, true},
		{"unknown revision", Options{Revision: "2025-13-01"}, `fakeserver: unknown protocol revision "2025-13-01" (want 2025-11-25 or 2026-07-28; empty serves both)`, true},
		{"bad fault", Options{Faults: []Fault{{Kind: FaultHang, Tool: "sample"}}}, `catalog "docs" has no tool "sample"`, false},
	} {
		_, err := New(&tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: New = %v, want an error with %q", tc.name, err, tc.text)
			continue
		}
		if got := errors.Is(err, ErrBadCatalog); got != tc.bad {
			t.Errorf("%s: errors.Is(%v, ErrBadCatalog) = %v, want %v", tc.name, err, got, tc.bad)
		}
		if !tc.bad && !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("%s: %v does not match transport.ErrBadFault", tc.name, err)
		}
	}
}
