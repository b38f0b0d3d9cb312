package cassette_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
)

func TestModeStringParses(t *testing.T) {
	leakcheck.Check(t)
	for _, m := range []cassette.Mode{cassette.ModeReplay, cassette.ModeRecord, cassette.ModeRecordOnce, cassette.ModePassthrough} {
		got, err := cassette.ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := cassette.ParseMode("sometimes"); err == nil {
		t.Error(`ParseMode("sometimes") succeeded`)
	}
	if got := cassette.Mode(9).String(); got != "Mode(9)" {
		t.Errorf("Mode(9).String() = %q", got)
	}
}

func TestModeFromEnv(t *testing.T) {
	for _, tc := range []struct {
		record, ci string
		want       cassette.Mode
		wantErr    bool
	}{
		{"", "", cassette.ModeRecordOnce, false},
		{"", "true", cassette.ModeReplay, false},
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
	path := filepath.Join(t.TempDir(), "absent.jsonl")
	_, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay})
	if !errors.Is(err, cassette.ErrNotRecorded) {
		t.Fatalf("Open = %v, want ErrNotRecorded", err)
	}
	mustContain(t, "error", err.Error(), path, "MCPRIG_RECORD=1")
}

func TestOpenModes(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "modes.jsonl")
	one := call{Tool: "count", Args: map[string]any{"label": "n"}}
	srv := newCounter()
	live := inprocess.New(srv.srv)
	run := func(mode cassette.Mode) outcome {
		t.Helper()
		f, err := cassette.Open(path, live, &cassette.Options{Mode: mode, Strict: true})
		if err != nil {
			t.Fatalf("Open(%v): %v", mode, err)
		}
		outs, err := session(t, f, one)
		if err != nil {
			t.Fatalf("%v: Close: %v", mode, err)
		}
		return outs[0]
	}
	exists := func() bool { _, err := os.Stat(path); return err == nil }

	if got := run(cassette.ModePassthrough); got.Text != "n #1" || exists() {
		t.Errorf("passthrough: %+v, cassette written %v; want the live answer and no cassette", got, exists())
	}
	if got := run(cassette.ModeRecordOnce); got.Text != "n #2" || !exists() {
		t.Errorf("record-once without a cassette: %+v, written %v; want the live answer, recorded", got, exists())
	}
	if got := run(cassette.ModeRecordOnce); got.Text != "n #2" {
		t.Errorf("record-once with a cassette: %+v; want the recorded answer", got)
	}
	if got := run(cassette.ModeReplay); got.Text != "n #2" {
		t.Errorf("replay: %+v; want the recorded answer", got)
	}
	if got := run(cassette.ModeRecord); got.Text != "n #3" {
		t.Errorf("record: %+v; want a new live answer", got)
	}
	if got := run(cassette.ModeReplay); got.Text != "n #3" {
		t.Errorf("replay after re-recording: %+v; want the new recording", got)
	}
	if diff := cmp.Diff(int64(3), srv.calls.Load()); diff != "" {
		t.Errorf("live executions mismatch (-want +got):\n%s", diff)
	}
	if _, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeRecord}); !errors.Is(err, cassette.ErrNoLive) {
		t.Errorf("Open(record, no live) = %v, want ErrNoLive", err)
	}
}
