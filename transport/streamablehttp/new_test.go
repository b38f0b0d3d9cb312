package streamablehttp_test

import (
	"crypto/tls"
	"errors"
	"testing"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
)

func TestNewValidates(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		endpoint string
		opts     *streamablehttp.Options
		want     error // nil: accepted
	}{
		{"https://mcp.example.com/mcp", nil, nil},
		{"http://127.0.0.1:8080/mcp", nil, nil},
		{"http://[::1]:8080/mcp", nil, nil},
		{"http://localhost/mcp", nil, nil},
		{"http://mcp.example.com/mcp", nil, streamablehttp.ErrInsecure},
		{"http://10.0.0.1/mcp", nil, streamablehttp.ErrInsecure},
		{"http://mcp.example.com/mcp", &streamablehttp.Options{AllowInsecureHTTP: true}, nil},
		{"https://mcp.example.com/mcp", &streamablehttp.Options{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS10}}, streamablehttp.ErrInsecure},
		{"https://mcp.example.com/mcp", &streamablehttp.Options{TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13}}, nil},
		{"ftp://mcp.example.com/mcp", nil, auth.ErrInvalidOrigin},
		{"https://user:pw@mcp.example.com/mcp", nil, auth.ErrInvalidOrigin},
		{"/mcp", nil, auth.ErrInvalidOrigin},
	} {
		f, err := streamablehttp.New(tc.endpoint, tc.opts)
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
