package cassette_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
)

// TestSeverityNames: each severity's name parses back to it, as text and
// in JSON; the order is info < minor < dangerous < breaking; other names
// and the zero value are refused with an error matching ErrInvalidOptions.
func TestSeverityNames(t *testing.T) {
	var names []string
	for i, s := range cassette.Severities {
		names = append(names, s.String())
		got, err := cassette.ParseSeverity(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, err)
		}
		if i > 0 && !(cassette.Severities[i-1] < s) {
			t.Errorf("%v is not above %v", s, cassette.Severities[i-1])
		}
		b, err := json.Marshal(s)
		var back cassette.Severity
		if err != nil || json.Unmarshal(b, &back) != nil || back != s {
			t.Errorf("JSON round trip of %v: %s, %v, %v", s, b, err, back)
		}
	}
	if diff := cmp.Diff([]string{"info", "minor", "dangerous", "breaking"}, names); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "Info", "critical", "breaking "} {
		if _, err := cassette.ParseSeverity(bad); !errors.Is(err, cassette.ErrInvalidOptions) {
			t.Errorf("ParseSeverity(%q) = %v, want ErrInvalidOptions", bad, err)
		}
	}
	if _, err := cassette.ParseSeverity("critical"); err == nil || err.Error() != `unknown severity "critical": want info, minor, dangerous or breaking` {
		t.Errorf("ParseSeverity(%q) = %v, want its message unchanged", "critical", err)
	}
	if _, err := json.Marshal(cassette.Severity(0)); !errors.Is(err, cassette.ErrInvalidOptions) {
		t.Errorf("Marshal(Severity(0)) = %v, want ErrInvalidOptions", err)
	}
	if _, err := json.Marshal(cassette.SeverityBreaking + 1); !errors.Is(err, cassette.ErrInvalidOptions) {
		t.Errorf("Marshal(SeverityBreaking+1) = %v, want ErrInvalidOptions", err)
	}
	if got := cassette.Worst(nil); got != 0 {
		t.Errorf("Worst(nil) = %v", got)
	}
}
