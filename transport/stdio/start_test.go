package stdio_test

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/stdio"
)

func TestStartError(t *testing.T) {
	leakcheck.Check(t)
	for _, tt := range []struct {
		path string
		want error
	}{
		{"stdio-test-no-such-program", exec.ErrNotFound},
		{"/nonexistent/stdio-test", fs.ErrNotExist},
	} {
		f, err := stdio.New(tt.path, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := f.Transport()
		_, err = tr.Connect(context.Background())
		var se *stdio.StartError
		if !errors.As(err, &se) || se.Path != tt.path || !errors.Is(err, tt.want) || !errors.Is(err, transport.ErrStart) {
			t.Errorf("Connect(%q) error = %v, want a *StartError for it wrapping %v and matching transport.ErrStart", tt.path, err, tt.want)
		}
	}
}

func TestStartCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr, _ := newFactory(t, "serve", nil).Transport()
	_, err := tr.Connect(ctx)
	var se *stdio.StartError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) {
		t.Errorf("Connect(canceled) error = %v, want a *StartError wrapping context.Canceled", err)
	}
}

func TestNewRejects(t *testing.T) {
	for name, tt := range map[string]struct {
		path string
		opts *stdio.Options
	}{
		"empty path":         {"", nil},
		"negative ring":      {"x", &stdio.Options{StderrBytes: -1}},
		"negative frame":     {"x", &stdio.Options{MaxFrameBytes: -1}},
		"negative grace":     {"x", &stdio.Options{CloseGrace: -time.Second}},
		"negative term":      {"x", &stdio.Options{TermGrace: -time.Second}},
		"inherit with =":     {"x", &stdio.Options{InheritEnv: []string{"A=B"}}},
		"inherit empty name": {"x", &stdio.Options{InheritEnv: []string{""}}},
		"env with =":         {"x", &stdio.Options{Env: map[string]string{"A=B": "c"}}},
		"env value NUL":      {"x", &stdio.Options{Env: map[string]string{"A": "b\x00c"}}},
	} {
		if _, err := stdio.New(tt.path, nil, tt.opts); err == nil {
			t.Errorf("New(%s) succeeded, want an error", name)
		}
	}
}

func TestKind(t *testing.T) {
	var f transport.Factory = newFactory(t, "serve", nil)
	if f.Kind() != transport.KindStdio {
		t.Errorf("Kind() = %v, want %v", f.Kind(), transport.KindStdio)
	}
}
