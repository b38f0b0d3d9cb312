package cassette_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	govcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// TestOptionsErrors: bad arguments and options, and options the cassette's
// transport cannot use, are an *OptionsError naming the function, the
// option and the reason, never ignored and never a panic.
func TestOptionsErrors(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	msgPath := tempPath(t, "msg.jsonl")
	recordCounter(t, msgPath, script[0])
	httpPath := "testdata/http.jsonl"
	file := tempPath(t, "new.jsonl")
	live := inprocess.New(newCounter().srv)
	badRedact := &cassette.Options{RedactPaths: []string{"params.arguments", "params..password"}}
	badIgnore := &cassette.Options{IgnorePaths: []string{""}}
	nilPattern := &cassette.Options{Patterns: []*regexp.Regexp{regexp.MustCompile("x"), nil}}
	someHook := []*recorder.Hook{recorder.NewHook(func(*govcr.Interaction) error { return nil }, recorder.BeforeSaveHook)}
	load := func(path string) *cassette.Cassette {
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	openErr := func(path string, mode cassette.Mode, o cassette.Options) func() error {
		return func() error {
			o.Mode = mode
			_, err := cassette.Open(path, live, &o)
			return err
		}
	}
	for _, tc := range []struct {
		name   string
		call   func() error
		want   *cassette.OptionsError
		reason error // a sentinel it wraps beside ErrInvalidOptions; nil when Option says why
	}{
		{"redact path", openErr(file, cassette.ModeRecord, *badRedact),
			&cassette.OptionsError{Func: "Open", Option: "RedactPaths[1]", Value: "params..password"}, nil},
		{"nil pattern", openErr(file, cassette.ModeRecord, *nilPattern),
			&cassette.OptionsError{Func: "Open", Option: "Patterns[1]"}, nil},
		{"ignore path in replay", openErr(msgPath, cassette.ModeReplay, *badIgnore),
			&cassette.OptionsError{Func: "Open", Option: "IgnorePaths[0]"}, nil},
		{"no live to record", func() error {
			_, err := cassette.Open(file, nil, &cassette.Options{Mode: cassette.ModeRecord})
			return err
		},
			&cassette.OptionsError{Func: "Open", Option: "live", Value: "record"}, nil},
		{"empty path", func() error { _, err := cassette.Open("", live, nil); return err },
			&cassette.OptionsError{Func: "Open", Option: "path"}, nil},
		{"directory", func() error { _, err := cassette.Open(dir, live, nil); return err },
			&cassette.OptionsError{Func: "Open", Option: "path", Value: dir}, nil},
		{"hooks recording in-process", openErr(file, cassette.ModeRecord, *vcr.Apply(&cassette.Options{}, &vcr.Options{Hooks: someHook})),
			&cassette.OptionsError{Func: "Open", Option: "Hooks"}, nil},
		{"hooks replaying in-process", openErr(msgPath, cassette.ModeReplay, *vcr.Apply(&cassette.Options{}, &vcr.Options{Hooks: someHook})),
			&cassette.OptionsError{Func: "Open", Option: "Hooks"}, nil},
		{"redact headers in-process", openErr(file, cassette.ModeRecord, cassette.Options{RedactHeaders: []string{"X-Key"}}),
			&cassette.OptionsError{Func: "Open", Option: "RedactHeaders"}, nil},
		{"stderr of an HTTP session", openErr(httpPath, cassette.ModeReplay, cassette.Options{Stderr: true}),
			&cassette.OptionsError{Func: "Open", Option: "Stderr"}, nil},
		{"stderr in-process", openErr(file, cassette.ModeRecord, cassette.Options{Stderr: true}),
			&cassette.OptionsError{Func: "Open", Option: "Stderr"}, nil},
		{"Replay ignore path", func() error { _, err := cassette.Replay(load(msgPath), nil, badIgnore); return err },
			&cassette.OptionsError{Func: "Replay", Option: "IgnorePaths[0]"}, nil},
		{"Verify", func() error { return cassette.Verify(context.Background(), load(msgPath), live, badIgnore) },
			&cassette.OptionsError{Func: "Verify", Option: "IgnorePaths[0]"}, nil},
		{"Verify with no live server", func() error { return cassette.Verify(context.Background(), load(msgPath), nil, nil) },
			&cassette.OptionsError{Func: "Verify", Option: "live"}, nil},
		{"Verify with faults", func() error {
			return cassette.Verify(context.Background(), load(msgPath), live, &cassette.Options{Faults: []cassette.Fault{{Kind: cassette.FaultEnd, Message: 1}}})
		},
			&cassette.OptionsError{Func: "Verify", Option: "Faults"}, transport.ErrBadFault},
		{"Verify with hooks in-process", func() error {
			return cassette.Verify(context.Background(), load(msgPath), live, vcr.Apply(&cassette.Options{}, &vcr.Options{Hooks: someHook}))
		},
			&cassette.OptionsError{Func: "Verify", Option: "Hooks"}, nil},
		{"Verify with stderr in-process", func() error {
			return cassette.Verify(context.Background(), load(msgPath), live, &cassette.Options{Stderr: true})
		},
			&cassette.OptionsError{Func: "Verify", Option: "Stderr"}, nil},
		{"Validate", func() error { return badRedact.Validate() },
			&cassette.OptionsError{Func: "Validate", Option: "RedactPaths[1]", Value: "params..password"}, nil},
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
			if !errors.Is(err, cassette.ErrInvalidOptions) || tc.reason != nil && !errors.Is(err, tc.reason) {
				t.Errorf("error %q does not match ErrInvalidOptions and %v", err, tc.reason)
			}
		})
	}
	if err := (*cassette.Options)(nil).Validate(); err != nil {
		t.Errorf("nil Options: Validate = %v", err)
	}
	// The options each transport can use are accepted.
	if _, err := cassette.Open(httpPath, nil, vcr.Apply(&cassette.Options{RedactHeaders: []string{"X-Key"}}, &vcr.Options{Hooks: someHook})); err != nil {
		t.Errorf("Hooks and RedactHeaders for an HTTP cassette: %v", err)
	}
}

// TestOptionsErrorNoFileNoLive: a missing file and a missing live
// transport are an *OptionsError whose Option says which ("path", "live"),
// matching ErrInvalidOptions, with the text they had as sentinels.
func TestOptionsErrorNoFileNoLive(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	msgPath := tempPath(t, "msg.jsonl")
	recordCounter(t, msgPath, script[0])
	c, err := cassette.Load(msgPath)
	if err != nil {
		t.Fatal(err)
	}
	live := inprocess.New(newCounter().srv)
	type got struct{ Option, Text string }
	var gots []got
	for _, err := range []error{
		func() error { _, err := cassette.Open("", live, nil); return err }(),
		func() error { _, err := cassette.Open(dir, live, nil); return err }(),
		func() error {
			_, err := cassette.Open(tempPath(t, "new.jsonl"), nil, &cassette.Options{Mode: cassette.ModeRecord})
			return err
		}(),
		cassette.Verify(context.Background(), c, nil, nil),
	} {
		var oe *cassette.OptionsError
		if !errors.As(err, &oe) || !errors.Is(err, cassette.ErrInvalidOptions) {
			t.Fatalf("error = %v, want an *OptionsError matching ErrInvalidOptions", err)
		}
		gots = append(gots, got{oe.Option, err.Error()})
	}
	want := []got{
		{"path", "cassette.Open: path: no cassette file"},
		{"path", "cassette.Open: path " + strconv.Quote(dir) + ": no cassette file: a directory"},
		{"live", `cassette.Open: live "record": no live transport to record from`},
		{"live", "cassette.Verify: live: no live transport to record from"},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("errors mismatch (-want +got):\n%s", diff)
	}
	// A file and a live transport given: neither reason.
	for _, mode := range []cassette.Mode{cassette.ModeRecord, cassette.ModeReplay} {
		f, err := cassette.Open(msgPath, live, &cassette.Options{Mode: mode})
		if err != nil {
			t.Fatalf("%v: Open = %v, want no error", mode, err)
		}
		f.Discard()
	}
}

func TestModeStringParses(t *testing.T) {
	for _, m := range []cassette.Mode{cassette.ModeReplay, cassette.ModeRecord, cassette.ModeRecordOnce, cassette.ModePassthrough} {
		got, err := cassette.ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := cassette.ParseMode("sometimes"); err == nil {
		t.Error("ParseMode(sometimes) succeeded")
	}
}

// ModeFromEnv reads CI as a boolean: CI=false and CI=0 are not CI, and
// replay only where CI says it is one.
func TestModeFromEnv(t *testing.T) {
	for _, tc := range []struct {
		record, ci string
		want       cassette.Mode
		wantErr    bool
	}{
		{"", "", cassette.ModeRecordOnce, false},
		{"", "true", cassette.ModeReplay, false},
		{"", "1", cassette.ModeReplay, false},
		{"", "True", cassette.ModeReplay, false},
		{"", "woodpecker", cassette.ModeReplay, false},
		{"", "false", cassette.ModeRecordOnce, false},
		{"", "0", cassette.ModeRecordOnce, false},
		{"", "FALSE", cassette.ModeRecordOnce, false},
		{"", " false ", cassette.ModeRecordOnce, false},
		{"", "f", cassette.ModeRecordOnce, false},
		{"1", "false", cassette.ModeRecord, false},
		{"1", "true", cassette.ModeRecord, false},
		{"1", "", cassette.ModeRecord, false},
		{"passthrough", "true", cassette.ModePassthrough, false},
		{"record-once", "", cassette.ModeRecordOnce, false},
		{"0", "", cassette.ModeReplay, false},
		{"maybe", "", 0, true},
	} {
		t.Setenv(cassette.EnvRecord, tc.record)
		t.Setenv("CI", tc.ci)
		got, err := cassette.ModeFromEnv()
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("MCPRIG_RECORD=%q CI=%q: ModeFromEnv = %v, %v; want %v (error %v)", tc.record, tc.ci, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestOpenReplayMissingSaysHowToRecord(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "absent.jsonl")
	_, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay})
	if !errors.Is(err, cassette.ErrNotRecorded) {
		t.Fatalf("Open = %v, want ErrNotRecorded", err)
	}
	mustContain(t, "error", err.Error(), path, "MCPRIG_RECORD=1")
}

func TestOpenModes(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "modes.jsonl")
	one := call{Tool: "count", Args: map[string]any{"label": "n"}}
	srv := newCounter()
	live := inprocess.New(srv.srv)
	run := func(mode cassette.Mode, want cassette.Mode) outcome {
		t.Helper()
		f := open(t, path, live, &cassette.Options{Mode: mode})
		if f.Mode() != want {
			t.Errorf("Open(%v).Mode() = %v, want %v", mode, f.Mode(), want)
		}
		outs, err := session(t, f, rev2025, one)
		if err != nil {
			t.Fatalf("%v: session Close: %v", mode, err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("%v: Close: %v", mode, err)
		}
		return outs[0]
	}
	exists := func() bool { _, err := os.Stat(path); return err == nil }

	if got := run(cassette.ModePassthrough, cassette.ModePassthrough); got.Text != "n #1" || exists() {
		t.Errorf("passthrough: %+v, cassette written %v; want the live answer and no cassette", got, exists())
	}
	if got := run(cassette.ModeRecordOnce, cassette.ModeRecord); got.Text != "n #2" || !exists() {
		t.Errorf("record-once without a cassette: %+v, written %v; want the live answer, recorded", got, exists())
	}
	if got := run(cassette.ModeRecordOnce, cassette.ModeReplay); got.Text != "n #2" {
		t.Errorf("record-once with a cassette: %+v; want the recorded answer", got)
	}
	if got := run(cassette.ModeReplay, cassette.ModeReplay); got.Text != "n #2" {
		t.Errorf("replay: %+v; want the recorded answer", got)
	}
	if got := run(cassette.ModeRecord, cassette.ModeRecord); got.Text != "n #3" {
		t.Errorf("record: %+v; want a new live answer", got)
	}
	if got := run(cassette.ModeReplay, cassette.ModeReplay); got.Text != "n #3" {
		t.Errorf("replay after re-recording: %+v; want the new recording", got)
	}
	if diff := cmp.Diff(int64(3), srv.calls.Load()); diff != "" {
		t.Errorf("live executions mismatch (-want +got):\n%s", diff)
	}
}

// memFS is a go-vcr FS in memory that counts what it is asked.
type memFS struct {
	mu     sync.Mutex
	files  map[string][]byte
	reads  int
	writes int
	checks int
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	data, ok := m.files[name]
	if !ok {
		return nil, os.ErrNotExist
	}
	return data, nil
}

func (m *memFS) WriteFile(name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	m.files[name] = append([]byte(nil), data...)
	return nil
}

func (m *memFS) IsFileExists(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checks++
	_, ok := m.files[name]
	return ok
}

// TestFSServesEveryReadAndWrite: with go-vcr storage (vcr.Options.FS),
// record-once checks for, writes and reads the cassette through it, and
// nothing touches the disk.
func TestFSServesEveryReadAndWrite(t *testing.T) {
	leakcheck.Check(t)
	fs := &memFS{files: map[string][]byte{}}
	path := tempPath(t, "in-memory.jsonl")
	one := call{Tool: "count", Args: map[string]any{"label": "m"}}
	live := inprocess.New(newCounter().srv)
	for _, want := range []cassette.Mode{cassette.ModeRecord, cassette.ModeReplay} {
		f := open(t, path, live, vcr.Apply(&cassette.Options{Mode: cassette.ModeRecordOnce}, &vcr.Options{FS: fs}))
		if f.Mode() != want {
			t.Fatalf("Mode = %v, want %v", f.Mode(), want)
		}
		outs, _ := session(t, f, rev2025, one)
		if err := f.Close(); err != nil || outs[0].Text != "m #1" {
			t.Fatalf("%v: %+v, Close %v", want, outs, err)
		}
	}
	if fs.checks != 2 || fs.writes != 1 || fs.reads != 1 {
		t.Errorf("FS asked %d checks, %d writes, %d reads; want 2, 1, 1", fs.checks, fs.writes, fs.reads)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the disk has the cassette (%v); want it in the FS only", err)
	}
}
