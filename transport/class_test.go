package transport_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/looprig/mcp/transport"
)

// sentinels are the failure sentinels of package transport.
var sentinels = map[string]error{
	"ErrStart": transport.ErrStart, "ErrPolicy": transport.ErrPolicy, "ErrAuth": transport.ErrAuth,
	"ErrProtocol": transport.ErrProtocol, "ErrTimeout": transport.ErrTimeout, "ErrBroken": transport.ErrBroken,
	"ErrServer": transport.ErrServer, "ErrMismatch": transport.ErrMismatch,
}

func allClasses() []transport.Class {
	var cs []transport.Class
	for c := transport.ClassStart; c <= transport.ClassMismatch; c++ {
		cs = append(cs, c)
	}
	return cs
}

// TestClassMapsBothWays: every class's String parses back to it, as text
// too, and names are distinct; "" is the zero class, "broken" the older
// name of ClassTransport, and anything else an error.
func TestClassMapsBothWays(t *testing.T) {
	seen := map[string]transport.Class{}
	for _, c := range allClasses() {
		s := c.String()
		if prev, ok := seen[s]; ok || s == "" {
			t.Errorf("class %d named %q, as %d is", int(c), s, int(prev))
		}
		seen[s] = c
		if got, err := transport.ParseClass(s); err != nil || got != c {
			t.Errorf("ParseClass(%q) = %v, %v; want %v", s, got, err, c)
		}
		text, err := c.MarshalText()
		var back transport.Class
		if err != nil || back.UnmarshalText(text) != nil || back != c {
			t.Errorf("%v: text %q, %v, read back as %v", c, text, err, back)
		}
	}
	if len(seen) != 10 {
		t.Errorf("%d classes, want 10", len(seen))
	}
	for s, want := range map[string]transport.Class{"": 0, "broken": transport.ClassTransport} {
		if got, err := transport.ParseClass(s); err != nil || got != want {
			t.Errorf("ParseClass(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"Broken", "cosmic", "transport "} {
		if _, err := transport.ParseClass(s); err == nil {
			t.Errorf("ParseClass(%q): no error", s)
		}
	}
	if _, err := transport.Class(11).MarshalText(); err == nil {
		t.Error("Class(11).MarshalText: no error")
	}
}

// TestEverySentinelHasOneClass: each failure sentinel is the Err of
// exactly one class, and each class's Err is a sentinel or nil (ClassTool
// and ClassClosed, a client's own).
func TestEverySentinelHasOneClass(t *testing.T) {
	for name, s := range sentinels {
		var of []transport.Class
		for _, c := range allClasses() {
			if c.Err() == s {
				of = append(of, c)
			}
		}
		if len(of) != 1 {
			t.Errorf("%s is the sentinel of classes %v, want exactly one", name, of)
		}
	}
	for _, c := range allClasses() {
		err := c.Err()
		if err == nil {
			if c != transport.ClassTool && c != transport.ClassClosed {
				t.Errorf("%v has no sentinel", c)
			}
			continue
		}
		found := false
		for _, s := range sentinels {
			found = found || s == err
		}
		if !found || !errors.Is(fmt.Errorf("wrapped: %w", err), err) {
			t.Errorf("%v: Err() = %v, not one of the sentinels", c, err)
		}
	}
	if transport.Class(0).Err() != nil || transport.Class(0).String() != "" {
		t.Error("the zero Class has a sentinel or a name")
	}
}
