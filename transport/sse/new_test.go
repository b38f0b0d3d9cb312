package sse_test

import (
	"crypto/tls"
	"errors"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/sse"
)

func TestNewValidates(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		endpoint string
		opts     *sse.Options
		want     error // nil: accepted
	}{
		{"https://mcp.example.com/sse", nil, nil},
		{"http://127.0.0.1:8080/sse", nil, nil},
		{"http://[::1]:8080/sse", nil, nil},
		{"http://localhost/sse", nil, nil},
		{"http://mcp.example.com/sse", nil, sse.ErrInsecure},
		{"http://10.0.0.1/sse", nil, sse.ErrInsecure},
		{"http://mcp.example.com/sse", &sse.Options{AllowInsecureHTTP: true}, nil},
		{"https://mcp.example.com/sse", &sse.Options{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS10}}, sse.ErrInsecure},
		{"https://mcp.example.com/sse", &sse.Options{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13}}, nil},
		{"ftp://mcp.example.com/sse", nil, auth.ErrInvalidOrigin},
		{"https://user:pw@mcp.example.com/sse", nil, auth.ErrInvalidOrigin},
		{"/sse", nil, auth.ErrInvalidOrigin},
	} {
		f, err := sse.New(tc.endpoint, tc.opts)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("New(%q): %v", tc.endpoint, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("New(%q) error = %v, want %v", tc.endpoint, err, tc.want)
		case tc.want == nil:
			if o, _ := auth.ParseOrigin(tc.endpoint); f.Origin() != o {
				t.Errorf("New(%q).Origin() = %v, want %v", tc.endpoint, f.Origin(), o)
			}
		}
	}
}
