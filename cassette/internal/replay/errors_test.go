package replay

import (
	"errors"

	"github.com/looprig/mcp/cassette/internal/errs"
)

// testErrors makes errors with the texts of package cassette's, which
// package replay cannot import.
var testErrors = &errs.Errors{
	Mismatch: func(m *errs.Mismatch) error { return errors.New(m.Message()) },
	Recorded: func(r *errs.Recorded) error { return errors.New(r.Message()) },
	Options:  func(o *errs.Options) error { return optionsError{o} },
}

// optionsError is an option refused, unwrapping to its reason.
type optionsError struct{ o *errs.Options }

func (e optionsError) Error() string { return e.o.Message() }
func (e optionsError) Unwrap() error { return e.o.Err }
