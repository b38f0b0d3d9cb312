package cassette_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32); the other reasons are fields of its typed errors.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{
		"ErrInvalidOptions", "ErrNotRecorded",
	}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}

// TestFormatReasonNames: each reason prints its name, one out of range its
// number.
func TestFormatReasonNames(t *testing.T) {
	leakcheck.Check(t)
	var got []string
	for _, r := range []cassette.FormatReason{cassette.FormatInvalid, cassette.FormatTruncated, cassette.FormatVersion, cassette.FormatTooDeep, cassette.FormatTooDeep + 1} {
		got = append(got, r.String())
	}
	want := []string{"invalid", "truncated", "version", "too deep", "FormatReason(4)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
}

// TestRecordReasonNames: each reason prints its name, one out of range its
// number.
func TestRecordReasonNames(t *testing.T) {
	leakcheck.Check(t)
	var got []string
	for _, r := range []cassette.RecordReason{cassette.RecordIncomplete, cassette.RecordTooLarge, cassette.RecordInvalid, cassette.RecordWrite, cassette.RecordWrite + 1} {
		got = append(got, r.String())
	}
	want := []string{"incomplete", "too large", "invalid", "write", "RecordReason(4)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
}
