package cassette_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// TestOpenHTTPModes runs the same call in every mode against a live HTTP
// server: passthrough and record reach it, replay does not, record-once
// records once and then replays, and a recorded session is written when
// the client closes it (its DELETE), with no Close of the recorder.
func TestOpenHTTPModes(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "modes.jsonl")
	rig := newHTTPRig(t, nil)
	tok := auth.NewToken("s3cr3t-open")
	sopts := &streamablehttp.Options{Base: base(t), Credentials: auth.Bearer(tok)}
	opts := func(mode cassette.Mode) *cassette.Options {
		return &cassette.Options{Mode: mode, Strict: true, Revealers: []cassette.Revealer{tok}}
	}
	one := call{Tool: "count", Args: map[string]any{"label": "n"}}
	run := func(mode cassette.Mode) (outcome, any) {
		t.Helper()
		f, err := cassette.OpenHTTP(path, rig.url(), sopts, opts(mode))
		if err != nil {
			t.Fatalf("OpenHTTP(%v): %v", mode, err)
		}
		outs, err := session(t, f, one)
		if err != nil {
			t.Fatalf("%v: Close: %v", mode, err)
		}
		if p, ok := f.(*cassette.Player); ok {
			if err := p.Err(); err != nil {
				t.Errorf("%v: Player.Err: %v", mode, err)
			}
		}
		return outs[0], f
	}
	exists := func() bool { _, err := os.Stat(path); return err == nil }

	if got, _ := run(cassette.ModePassthrough); got.Text != "n #1" || exists() {
		t.Errorf("passthrough: %+v, cassette written %v; want the live answer and no cassette", got, exists())
	}
	got, f := run(cassette.ModeRecordOnce)
	if _, ok := f.(*cassette.HTTPRecorder); !ok || got.Text != "n #2" || !exists() {
		t.Errorf("record-once without a cassette: %T %+v, written %v; want an HTTPRecorder, the live answer, recorded", f, got, exists())
	}
	if data := mustRead(t, path); len(data) == 0 || bytes.Contains(data, []byte("s3cr3t-open")) {
		t.Errorf("recorded cassette is empty or holds the token:\n%s", data)
	}
	if got, f := run(cassette.ModeRecordOnce); got.Text != "n #2" {
		t.Errorf("record-once with a cassette: %T %+v; want the recorded answer", f, got)
	}
	if got, _ := run(cassette.ModeReplay); got.Text != "n #2" {
		t.Errorf("replay: %+v; want the recorded answer", got)
	}
	if got, _ := run(cassette.ModeRecord); got.Text != "n #3" {
		t.Errorf("record: %+v; want a new live answer", got)
	}
	if got, _ := run(cassette.ModeReplay); got.Text != "n #3" {
		t.Errorf("replay after re-recording: %+v; want the new recording", got)
	}
	if diff := cmp.Diff(int64(3), rig.calls.Load()); diff != "" {
		t.Errorf("live executions mismatch (-want +got):\n%s", diff)
	}
	// Any other streamablehttp factory still cannot be recorded.
	plain, err := streamablehttp.New(rig.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cassette.Open(path, plain, &cassette.Options{Mode: cassette.ModeRecord}); !errors.Is(err, cassette.ErrHTTPLevel) {
		t.Errorf("Open(record, *streamablehttp.Factory) = %v, want ErrHTTPLevel", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
