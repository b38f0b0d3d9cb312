package cassette

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/leakcheck"
)

// TestExportedFormatErrors checks that a format error leaves the package as
// a *FormatError, alone or wrapped, its text unchanged, and that other
// errors leave as they are.
func TestExportedFormatErrors(t *testing.T) {
	leakcheck.Check(t)
	inner := &format.FormatError{File: "a.jsonl", Line: 3, Err: io.ErrUnexpectedEOF}
	for _, err := range []error{inner, fmt.Errorf("recorded session would not load: %w", inner)} {
		got := exported(err)
		var ferr *FormatError
		if !errors.As(got, &ferr) || ferr.Line != 3 || ferr.File != "a.jsonl" {
			t.Errorf("exported(%v): errors.As found %#v", err, ferr)
		}
		var internal *format.FormatError
		if errors.As(got, &internal) && err == inner {
			t.Errorf("exported(%v) is still a *format.FormatError", err)
		}
		if got.Error() != err.Error() || !errors.Is(got, io.ErrUnexpectedEOF) {
			t.Errorf("exported(%v) = %q, wrapping %v", err, got, errors.Unwrap(got))
		}
	}
	plain := errors.New("plain")
	if exported(plain) != plain || exported(nil) != nil {
		t.Error("exported changed an error with no format error in it")
	}
}
