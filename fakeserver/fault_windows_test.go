package fakeserver

import (
	"errors"
	"github.com/looprig/mcp/transport"
	"testing"
)

// On Windows itself ParseFault (the --fault flag's parser) refuses the
// faults that need POSIX sessions or signals, and New refuses them too.
func TestPOSIXFaultsRefusedHere(t *testing.T) {
	for _, text := range []string{"ignore-sigterm", "grandchild:setsid"} {
		if _, err := ParseFault(text); !errors.Is(err, transport.ErrBadFault) || !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("ParseFault(%q) error = %v, want transport.ErrBadFault and errors.ErrUnsupported", text, err)
		}
	}
	if _, err := ParseFault("grandchild"); err != nil {
		t.Errorf("ParseFault(grandchild) = %v: a grandchild in the child's job works here", err)
	}
	_, err := New(&Options{Faults: []Fault{{Kind: FaultIgnoreSIGTERM}}})
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("New(ignore-sigterm) error = %v, want errors.ErrUnsupported", err)
	}
}
