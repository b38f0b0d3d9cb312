package auth_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
)

func TestParseOrigin(t *testing.T) {
	leakcheck.Check(t)
	tests := []struct {
		in     string
		want   auth.Origin
		str    string
		loopbk bool
	}{
		{"https://Example.COM/mcp", auth.Origin{"https", "example.com", 443}, "https://example.com", false},
		{"https://example.com:443/x?y", auth.Origin{"https", "example.com", 443}, "https://example.com", false},
		{"HTTP://example.com.:80", auth.Origin{"http", "example.com", 80}, "http://example.com", false},
		{"http://example.com:8080/", auth.Origin{"http", "example.com", 8080}, "http://example.com:8080", false},
		{"http://127.0.0.1:3000/mcp", auth.Origin{"http", "127.0.0.1", 3000}, "http://127.0.0.1:3000", true},
		{"http://[::1]:3000", auth.Origin{"http", "::1", 3000}, "http://[::1]:3000", true},
		{"https://[::1]", auth.Origin{"https", "::1", 443}, "https://[::1]", true},
		{"http://localhost:1", auth.Origin{"http", "localhost", 1}, "http://localhost:1", true},
		{"http://a.localhost", auth.Origin{"http", "a.localhost", 80}, "http://a.localhost", true},
	}
	for _, tt := range tests {
		got, err := auth.ParseOrigin(tt.in)
		if err != nil {
			t.Errorf("ParseOrigin(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseOrigin(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if got.String() != tt.str {
			t.Errorf("ParseOrigin(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
		if got.IsLoopback() != tt.loopbk {
			t.Errorf("ParseOrigin(%q).IsLoopback() = %v, want %v", tt.in, got.IsLoopback(), tt.loopbk)
		}
	}
}

// TestParseOriginRejects: a URL that names no origin is an error matching
// ErrInvalidArgument, its text starting "auth: invalid origin: "; the
// ports at the edges (1, 65535) are origins.
func TestParseOriginRejects(t *testing.T) {
	leakcheck.Check(t)
	for in, want := range map[string]string{
		"":                            "auth: invalid origin: scheme \"\" is not http or https",
		"/relative":                   "auth: invalid origin: scheme \"\" is not http or https",
		"ftp://example.com":           "auth: invalid origin: scheme \"ftp\" is not http or https",
		"https://":                    "auth: invalid origin: no host",
		"https://user:pw@example.com": "auth: invalid origin: URL carries user information",
		"https://example.com:0":       "auth: invalid origin: port \"0\"",
		"https://example.com:65536":   "auth: invalid origin: port \"65536\"",
		"https://example.com:x":       `auth: invalid origin: parse "https://example.com:x": invalid port ":x" after host`,
		"://bad":                      `auth: invalid origin: parse "://bad": missing protocol scheme`,
	} {
		o, err := auth.ParseOrigin(in)
		if !errors.Is(err, auth.ErrInvalidArgument) || err.Error() != want {
			t.Errorf("ParseOrigin(%q) = %v, %v; want %q, matching ErrInvalidArgument", in, o, err, want)
		}
	}
	for _, in := range []string{"https://example.com:1", "https://example.com:65535"} {
		if _, err := auth.ParseOrigin(in); err != nil {
			t.Errorf("ParseOrigin(%q) = %v, want an origin", in, err)
		}
	}
}

func TestOriginMatches(t *testing.T) {
	leakcheck.Check(t)
	o, err := auth.ParseOrigin("https://example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]bool{
		"https://example.com/other":     true,
		"https://EXAMPLE.com:443/":      true,
		"http://example.com/mcp":        false,
		"https://example.com:8443/mcp":  false,
		"https://evil.example.com/mcp":  false,
		"https://example.com.evil.com/": false,
		"https://user@example.com/mcp":  false,
		"ws://example.com/mcp":          false,
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Matches(u); got != want {
			t.Errorf("Matches(%q) = %v, want %v", in, got, want)
		}
	}
	p, _ := auth.ParseOrigin("https://example.com:443")
	if !o.Equal(p) || o != p {
		t.Errorf("%v and %v should be equal", o, p)
	}
}
