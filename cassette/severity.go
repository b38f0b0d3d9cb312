package cassette

import (
	"fmt"

	"github.com/looprig/mcp/internal/transcript"
)

// A Severity weighs a Drift or a Finding. Higher is worse, so
// "at least" compares with >=. The zero value is no severity.
type Severity int

// Severities, from the least to the worst. See Compare for what each
// drift weighs, and Check for each finding.
const (
	// SeverityInfo: a change no caller notices (order, titles, icons, the
	// server's version).
	SeverityInfo = Severity(transcript.Info)
	// SeverityMinor: a compatible change (an optional argument added, an
	// argument's description reworded, a result's values in the same shape).
	SeverityMinor = Severity(transcript.Minor)
	// SeverityDangerous: a change that can turn a model against its user
	// (a description or the instructions changed, annotations relaxed, a
	// new tool).
	SeverityDangerous = Severity(transcript.Dangerous)
	// SeverityBreaking: a change that breaks callers (something removed, a
	// required argument added, a type narrowed, a result's shape or error
	// changed).
	SeverityBreaking = Severity(transcript.Breaking)
)

// Severities lists every severity, from the least to the worst.
var Severities = []Severity{SeverityInfo, SeverityMinor, SeverityDangerous, SeverityBreaking}

// errSeverity is the error of a name or value that is not a severity. It
// matches ErrInvalidOptions.
const errSeverity = invalidArgument("unknown severity")

// String returns the severity's name: "info", "minor", "dangerous" or
// "breaking".
func (s Severity) String() string { return transcript.Severity(s).String() }

// ParseSeverity returns the severity named s, as String spells it. Another
// name is an error matching ErrInvalidOptions.
func ParseSeverity(s string) (Severity, error) {
	for _, v := range Severities {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w %q: want info, minor, dangerous or breaking", errSeverity, s)
}

// MarshalText returns the severity's name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < SeverityInfo || s > SeverityBreaking {
		return nil, fmt.Errorf("%w: %d", errSeverity, int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText sets the severity from its name (ParseSeverity).
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Worst returns the worst severity among ds; 0 when ds is empty.
func Worst(ds []Drift) Severity {
	w := Severity(0)
	for _, d := range ds {
		w = max(w, d.Severity)
	}
	return w
}
