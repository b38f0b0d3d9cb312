package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
)

// TestFailedRecordingKeepsOldFile: a recording that cannot be written says
// so from Close, and the cassette recorded before it is left as it was: a
// session without a handshake, a write that fails, and a session that was
// never made.
func TestFailedRecordingKeepsOldFile(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "kept.jsonl")
	old, _ := record(t, path, inprocess.New(newCounter().srv), nil, rev2025, script[0])
	for _, tc := range []struct {
		name   string
		run    func(f *cassette.Factory)
		opts   *cassette.Options
		reason cassette.RecordReason
		is     error // a cause it wraps; nil when there is none to name
	}{
		{"no handshake", func(f *cassette.Factory) {
			tr, _ := f.Transport()
			conn, err := tr.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
		}, nil, cassette.RecordIncomplete, nil},
		{"no session", func(*cassette.Factory) {}, nil, cassette.RecordIncomplete, nil},
		{"the write fails", func(f *cassette.Factory) { session(t, f, rev2025, script[0]) }, vcr.Apply(&cassette.Options{}, &vcr.Options{FS: failingFS{}}), cassette.RecordWrite, errDiskFull},
	} {
		f := open(t, path, inprocess.New(newCounter().srv), withMode(tc.opts, cassette.ModeRecord))
		tc.run(f)
		err := f.Close()
		var re *cassette.RecordError
		if !errors.As(err, &re) || re.Reason != tc.reason || re.Cassette != path || tc.is != nil && !errors.Is(err, tc.is) {
			t.Fatalf("%s: Close = %v, want a *RecordError of %s, reason %v, wrapping %v", tc.name, err, path, tc.reason, tc.is)
		}
		if want := "cassette " + path + ": " + re.Err.Error() + " (nothing written)"; err.Error() != want {
			t.Errorf("%s: Close's error = %q, want %q", tc.name, err, want)
		}
		mustContain(t, tc.name+": Close's error", err.Error(), path, "nothing written")
		if now, _ := os.ReadFile(path); string(now) != string(old) {
			t.Errorf("%s: the earlier cassette changed", tc.name)
		}
	}
}

// reasonOf returns the reason of err, a *RecordError, or -1.
func reasonOf(err error) cassette.RecordReason {
	var re *cassette.RecordError
	if !errors.As(err, &re) {
		return -1
	}
	return re.Reason
}

// TestRerecordingIsAtomic: a cassette re-recorded while a reader holds the
// old file open leaves that reader the old bytes, whole (the new recording
// is written beside it and renamed over it), and the new bytes to a reader
// opening it afterwards.
func TestRerecordingIsAtomic(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "rerecorded.jsonl")
	old, _ := record(t, path, inprocess.New(newCounter().srv), nil, rev2025, script[0])
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := make([]byte, 10)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	now, _ := record(t, path, inprocess.New(newCounter().srv), nil, rev2025, script...)
	if bytes.Equal(now, old) {
		t.Fatal("the re-recording is the same as the old one: nothing to tell apart")
	}
	rest, err := io.ReadAll(r)
	if got := append(head, rest...); err != nil || !bytes.Equal(got, old) {
		t.Errorf("the reader holding the old cassette read %d bytes, %v; want the %d old bytes", len(got), err, len(old))
	}
}

var errDiskFull = errors.New("disk full")

// failingFS fails every write.
type failingFS struct{}

func (failingFS) ReadFile(string) ([]byte, error) { return nil, os.ErrNotExist }
func (failingFS) WriteFile(string, []byte) error  { return errDiskFull }
func (failingFS) IsFileExists(string) bool        { return false }

// TestStderrRecordedWhenAsked: the stderr tail of a stdio server the client
// closed is recorded (redacted) only when Options.Stderr asks, in the
// session's ending; replay reports it once the session has ended.
func TestStderrRecordedWhenAsked(t *testing.T) {
	leakcheck.Check(t)
	for _, asked := range []bool{false, true} {
		path := tempPath(t, "stderr.jsonl")
		opts := &cassette.Options{Stderr: asked, Secrets: []string{"s3cr3t"}}
		record(t, path, stdioCounter(t, nil), opts, rev2025, script[0])
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		end := c.Interactions[len(c.Interactions)-1].Ending
		want := ""
		if asked {
			want = "listening with key REDACTED-1\n"
		}
		if end == nil || end.End != cassette.EndClient || end.Stderr != want {
			t.Fatalf("Stderr=%v: ending %+v, want the client's with stderr %q", asked, end, want)
		}
		if !asked {
			continue
		}
		f := replaying(t, path, opts)
		tr, _ := f.Transport()
		conn, _ := tr.Connect(context.Background())
		d := conn.(transport.Diagnoser)
		if got := d.Diagnose(); got != nil {
			t.Errorf("diagnosis before the end = %v, want none", got)
		}
		conn.Close()
		if got := d.Diagnose(); got == nil || !cmp.Equal(string(got.Stderr), want) {
			t.Errorf("diagnosis after the end = %v, want the recorded stderr", got)
		}
	}
}

// TestWrittenWhenTheSessionEnds: a session the client closed (a
// message-level one, or a stateful HTTP one, ended with DELETE) is written
// at once; a stateless HTTP session, which nothing ends on the wire, when
// the factory is closed. Either way Close returns the write's result.
func TestWrittenWhenTheSessionEnds(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name    string
		live    func(t *testing.T) transport.Factory
		atClose bool // written only at the factory's Close
	}{
		{"inprocess", func(t *testing.T) transport.Factory { return inprocess.New(newCounter().srv) }, false},
		{"http stateful", func(t *testing.T) transport.Factory {
			return httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil)
		}, false},
		{"http stateless", func(t *testing.T) transport.Factory {
			return httpLive(t, newHTTPServer(t, statefulCounter(), true, nil).url(), nil)
		}, true},
	} {
		path := tempPath(t, "ended.jsonl")
		f := open(t, path, tc.live(t), withMode(nil, cassette.ModeRecord))
		if _, err := session(t, f, rev2025, script[0]); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(path)
		if written := err == nil; written == tc.atClose {
			t.Errorf("%s: written before the factory's Close: %v, want %v", tc.name, written, !tc.atClose)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("%s: Close: %v", tc.name, err)
		}
		if _, err := cassette.Load(path); err != nil {
			t.Errorf("%s: after Close: %v", tc.name, err)
		}
	}
}

// TestWriteAtClose: with Options.WriteAtClose a recording is written by
// Close, not when the session ends, and Discard writes nothing at all, so
// the earlier cassette stays byte for byte. Without the option the
// session's end writes it (and a later Discard cannot take it back).
func TestWriteAtClose(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "held.jsonl")
	old, _ := record(t, path, inprocess.New(newCounter().srv), nil, rev2025, script[0])
	unchanged := func(what string) {
		t.Helper()
		if now, _ := os.ReadFile(path); string(now) != string(old) {
			t.Errorf("%s: the earlier cassette changed", what)
		}
	}
	held := &cassette.Options{WriteAtClose: true}

	f := open(t, path, inprocess.New(newCounter().srv), withMode(held, cassette.ModeRecord))
	if _, err := session(t, f, rev2025, script[2]); err != nil {
		t.Fatal(err)
	}
	unchanged("WriteAtClose, after the session ended")
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	now, _ := os.ReadFile(path)
	if !strings.Contains(string(now), `"second"`) {
		t.Errorf("Close did not write the held recording")
	}
	old = now

	f = open(t, path, inprocess.New(newCounter().srv), withMode(held, cassette.ModeRecord))
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.Discard(); err != nil {
		t.Fatalf("Discard: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close after Discard: %v", err)
	}
	unchanged("Discard, then Close")

	f = open(t, path, inprocess.New(newCounter().srv), withMode(nil, cassette.ModeRecord))
	if _, err := session(t, f, rev2025, script[0]); err != nil {
		t.Fatal(err)
	}
	f.Discard()
	if now, _ := os.ReadFile(path); string(now) == string(old) {
		t.Errorf("without WriteAtClose the session's end did not write the recording")
	}
}
