package fakeserver

import (
	"bytes"
	"strings"
	"testing"
)

func TestMainHTTPFlags(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"--sse"}, "--sse needs --http ADDR"},
		{[]string{"--stateless"}, "--stateless needs --http ADDR, without --sse"},
		{[]string{"--http", "127.0.0.1:0", "--sse", "--stateless"}, "--stateless needs --http ADDR, without --sse"},
		{[]string{"--fault", "drop=lookup:1"}, `does not act in a stdio child, only over Streamable HTTP`},
		{[]string{"--http", "nonsense"}, `listen address "nonsense"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
			t.Errorf("run(%q) = %d, stderr %.80q; want failure, %q", tt.args, code, stderr.String(), tt.wantStderr)
		}
	}
}
