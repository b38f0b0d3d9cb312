package cassette

import "github.com/looprig/mcp/cassette/internal/verify"

// A Severity weighs a Drift or a Finding. Higher is worse, so
// "at least" compares with >=. The zero value is no severity.
//
// Its String and MarshalText return its name ("info", "minor",
// "dangerous" or "breaking"); UnmarshalText reads it (ParseSeverity).
type Severity = verify.Severity

// Severities, from the least to the worst. See Compare for what each
// drift weighs, and Check for each finding.
const (
	// SeverityInfo: a change no caller notices (order, titles, icons, the
	// server's version).
	SeverityInfo = verify.SeverityInfo
	// SeverityMinor: a compatible change (an optional argument added, an
	// argument's description reworded, a result's values in the same shape).
	SeverityMinor = verify.SeverityMinor
	// SeverityDangerous: a change that can turn a model against its user
	// (a description or the instructions changed, annotations relaxed, a
	// new tool).
	SeverityDangerous = verify.SeverityDangerous
	// SeverityBreaking: a change that breaks callers (something removed, a
	// required argument added, a type narrowed, a result's shape or error
	// changed).
	SeverityBreaking = verify.SeverityBreaking
)

// Severities lists every severity, from the least to the worst.
var Severities = verify.Severities

// ErrSeverity is returned by ParseSeverity for a name that is not a
// severity.
var ErrSeverity = verify.ErrSeverity

// ParseSeverity returns the severity named s, as String spells it.
func ParseSeverity(s string) (Severity, error) { return verify.ParseSeverity(s) }

// Worst returns the worst severity among ds; 0 when ds is empty.
func Worst(ds []Drift) Severity { return verify.Worst(ds) }
