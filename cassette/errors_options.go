package cassette

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidOptions is matched (errors.Is) by every *OptionsError: it is
// returned when a constructor is given an argument or option it cannot use.
var ErrInvalidOptions = errors.New("cassette: invalid options")

// Reasons an OptionsError gives, in its Err.
var (
	// ErrEmptySegment is returned (inside an *OptionsError) when a
	// RedactPaths or IgnorePaths entry has an empty segment ("a..b", "").
	ErrEmptySegment = errors.New("path has an empty segment")
	// ErrNilPattern is returned (inside an *OptionsError) when Patterns
	// holds a nil *regexp.Regexp.
	ErrNilPattern = errors.New("nil pattern")
	// ErrNoFile is returned (inside an *OptionsError) when a cassette's file
	// path is empty or names a directory.
	ErrNoFile = errors.New("no cassette file")
	// ErrEndpoint is returned (inside an *OptionsError) when an HTTP
	// endpoint is not an absolute http or https URL.
	ErrEndpoint = errors.New("not an absolute http or https URL")
)

// An OptionsError reports an argument or option a constructor cannot use.
// It matches ErrInvalidOptions, and unwraps to the reason (ErrEmptySegment,
// ErrNilPattern, ErrNoFile, ErrEndpoint, ErrNoLive, or a hook's error).
type OptionsError struct {
	Func   string // the constructor: "NewRecorder", "NewHTTPRecorder", "NewPlayer", "Open", "Verify"
	Option string // what is wrong: "RedactPaths[1]", "IgnorePaths[0]", "Patterns[2]", "path", "endpoint", "inner", "Hooks"
	Value  string // the offending value, quoted in the message; "" when there is none
	Err    error  // why
}

func (e *OptionsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette.%s: %s", e.Func, e.Option)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the reason.
func (e *OptionsError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidOptions.
func (e *OptionsError) Is(target error) bool { return target == ErrInvalidOptions }

// Validate reports the first option that recording, replay or Verify
// cannot use, as an *OptionsError naming it (Func "Validate"). A nil
// *Options is valid.
func (o *Options) Validate() error {
	if err := o.validate(); err != nil {
		err.Func = "Validate"
		return err
	}
	return nil
}

// validate returns the first unusable option, Func unset.
func (o *Options) validate() *OptionsError {
	if o == nil {
		return nil
	}
	for _, f := range []struct {
		name  string
		paths []string
	}{{"RedactPaths", o.RedactPaths}, {"IgnorePaths", o.IgnorePaths}} {
		for i, s := range f.paths {
			if _, err := parsePath(s); err != nil {
				return &OptionsError{Option: f.name + "[" + strconv.Itoa(i) + "]", Value: s, Err: err}
			}
		}
	}
	for i, re := range o.Patterns {
		if re == nil {
			return &OptionsError{Option: "Patterns[" + strconv.Itoa(i) + "]", Err: ErrNilPattern}
		}
	}
	return nil
}

// checkOptions validates o for constructor fn.
func checkOptions(fn string, o *Options) error {
	if err := o.validate(); err != nil {
		err.Func = fn
		return err
	}
	return nil
}
