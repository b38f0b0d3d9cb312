package cassette_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// TestConstructorsReturnOptionsErrors: bad arguments and options are
// returned as an *OptionsError naming the constructor, the option and the
// reason, never a panic.
func TestConstructorsReturnOptionsErrors(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	msgPath := filepath.Join(dir, "msg.jsonl")
	record(t, msgPath, nil, script[0])
	httpPath := filepath.Join(dir, "http.jsonl")
	recordHTTP(t, httpPath, nil, nil, script[0])
	file := filepath.Join(dir, "new.jsonl")
	live := inprocess.New(newCounter().srv)
	badRedact := &cassette.Options{RedactPaths: []string{"params.arguments", "params..password"}}
	badIgnore := &cassette.Options{IgnorePaths: []string{""}}
	nilPattern := &cassette.Options{Patterns: []*regexp.Regexp{regexp.MustCompile("x"), nil}}
	hookErr := errors.New("hook refused")
	failingHook := &cassette.Options{Hooks: []*recorder.Hook{recorder.NewHook(func(*vcr.Interaction) error { return hookErr }, recorder.BeforeResponseReplayHook)}}
	load := func(path string) *cassette.Cassette {
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		call   func() error
		want   *cassette.OptionsError
		reason error
	}{
		{"NewRecorder redact path", func() error { _, err := cassette.NewRecorder(live, file, badRedact); return err },
			&cassette.OptionsError{Func: "NewRecorder", Option: "RedactPaths[1]", Value: "params..password"}, cassette.ErrEmptySegment},
		{"NewRecorder nil pattern", func() error { _, err := cassette.NewRecorder(live, file, nilPattern); return err },
			&cassette.OptionsError{Func: "NewRecorder", Option: "Patterns[1]"}, cassette.ErrNilPattern},
		{"NewRecorder nil inner", func() error { _, err := cassette.NewRecorder(nil, file, nil); return err },
			&cassette.OptionsError{Func: "NewRecorder", Option: "inner"}, cassette.ErrNoLive},
		{"NewRecorder empty path", func() error { _, err := cassette.NewRecorder(live, "", nil); return err },
			&cassette.OptionsError{Func: "NewRecorder", Option: "path"}, cassette.ErrNoFile},
		{"NewRecorder directory", func() error { _, err := cassette.NewRecorder(live, dir, nil); return err },
			&cassette.OptionsError{Func: "NewRecorder", Option: "path", Value: dir}, cassette.ErrNoFile},
		{"NewHTTPRecorder endpoint", func() error { _, err := cassette.NewHTTPRecorder("localhost:8080/mcp", nil, file, nil); return err },
			&cassette.OptionsError{Func: "NewHTTPRecorder", Option: "endpoint", Value: "localhost:8080/mcp"}, cassette.ErrEndpoint},
		{"NewHTTPRecorder unparsable endpoint", func() error { _, err := cassette.NewHTTPRecorder("http://[::1", nil, file, nil); return err },
			&cassette.OptionsError{Func: "NewHTTPRecorder", Option: "endpoint", Value: "http://[::1"}, cassette.ErrEndpoint},
		{"NewHTTPRecorder redact path", func() error {
			_, err := cassette.NewHTTPRecorder("http://127.0.0.1/mcp", nil, file, badRedact)
			return err
		},
			&cassette.OptionsError{Func: "NewHTTPRecorder", Option: "RedactPaths[1]", Value: "params..password"}, cassette.ErrEmptySegment},
		{"NewPlayer ignore path", func() error { _, err := cassette.NewPlayer(load(msgPath), badIgnore); return err },
			&cassette.OptionsError{Func: "NewPlayer", Option: "IgnorePaths[0]"}, cassette.ErrEmptySegment},
		{"NewPlayer failing hook", func() error { _, err := cassette.NewPlayer(load(httpPath), failingHook); return err },
			&cassette.OptionsError{Func: "NewPlayer", Option: "Hooks"}, hookErr},
		{"Replay redact path", func() error { _, err := cassette.Replay(msgPath, badRedact); return err },
			&cassette.OptionsError{Func: "NewPlayer", Option: "RedactPaths[1]", Value: "params..password"}, cassette.ErrEmptySegment},
		{"Open replay", func() error {
			_, err := cassette.Open(msgPath, nil, &cassette.Options{Mode: cassette.ModeReplay, IgnorePaths: []string{"a."}})
			return err
		}, &cassette.OptionsError{Func: "Open", Option: "IgnorePaths[0]", Value: "a."}, cassette.ErrEmptySegment},
		{"Open record", func() error {
			_, err := cassette.Open(file, live, &cassette.Options{Mode: cassette.ModeRecord, RedactPaths: []string{".x"}})
			return err
		}, &cassette.OptionsError{Func: "Open", Option: "RedactPaths[0]", Value: ".x"}, cassette.ErrEmptySegment},
		{"Verify", func() error { return cassette.Verify(context.Background(), load(msgPath), live, badIgnore) },
			&cassette.OptionsError{Func: "Verify", Option: "IgnorePaths[0]"}, cassette.ErrEmptySegment},
		{"Validate", func() error { return badRedact.Validate() },
			&cassette.OptionsError{Func: "Validate", Option: "RedactPaths[1]", Value: "params..password"}, cassette.ErrEmptySegment},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var got *cassette.OptionsError
			if !errors.As(err, &got) {
				t.Fatalf("error = %v, want an *OptionsError", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(cassette.OptionsError{}, "Err")); diff != "" {
				t.Errorf("OptionsError mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(err, cassette.ErrInvalidOptions) || !errors.Is(err, tc.reason) {
				t.Errorf("error %q does not match ErrInvalidOptions and %v", err, tc.reason)
			}
		})
	}
	if err := (*cassette.Options)(nil).Validate(); err != nil {
		t.Errorf("nil Options: Validate = %v", err)
	}
}

// TestOldConstructorsStillPanic: Record, RecordHTTP and Cassette.Player
// keep their contract (misuse panics), now with the *OptionsError.
func TestOldConstructorsStillPanic(t *testing.T) {
	leakcheck.Check(t)
	bad := &cassette.Options{RedactPaths: []string{"a..b"}}
	for name, f := range map[string]func(){
		"Record":     func() { cassette.Record(inprocess.New(newCounter().srv), "x.jsonl", bad) },
		"RecordHTTP": func() { cassette.RecordHTTP("http://127.0.0.1/mcp", nil, "x.jsonl", bad) },
		"Player":     func() { (&cassette.Cassette{}).Player(bad) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, cassette.ErrInvalidOptions) {
					t.Errorf("%s panicked with %v, want an *OptionsError", name, err)
				}
			}()
			f()
		}()
	}
}
