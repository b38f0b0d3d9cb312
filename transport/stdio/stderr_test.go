package stdio_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
)

// A child that floods stderr neither blocks nor grows memory past the ring:
// the drained bytes are dropped, only the tail is kept.
func TestStderrFloodBounded(t *testing.T) {
	leakcheck.Check(t)
	const flood = 256 << 20
	const ringSize = 64 << 10
	opts := &stdio.Options{StderrBytes: ringSize, Env: map[string]string{sizeEnv: strconv.Itoa(flood)}}
	f := newFactory(t, "flood", opts)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := connect(t, f)
	err := readUntilError(t, c)
	runtime.GC()
	runtime.ReadMemStats(&after)

	var ee *stdio.ExitError
	if !errors.As(err, &ee) || !ee.Exited || ee.ExitCode != 0 {
		t.Fatalf("Read() error = %v, want the child to exit with status 0", err)
	}
	if len(ee.Stderr) != ringSize {
		t.Errorf("stderr tail is %d bytes, want %d", len(ee.Stderr), ringSize)
	}
	const margin = 16 << 20 // far below the flood, far above the ring
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > margin {
		t.Errorf("heap grew by %d bytes while the child wrote %d to stderr; want under %d", grew, flood, margin)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 4*margin {
		t.Errorf("allocated %d bytes while the child wrote %d to stderr; want under %d", allocated, flood, 4*margin)
	}
	t.Logf("heap %d -> %d bytes; %d bytes allocated", before.HeapAlloc, after.HeapAlloc, after.TotalAlloc-before.TotalAlloc)
	runtime.KeepAlive(c)
}

// An early exit is reported by Read once the status is known, with the
// stderr tail; Diagnose says the same.
func TestEarlyExit(t *testing.T) {
	leakcheck.Check(t)
	var tee bytes.Buffer
	c := connect(t, newFactory(t, "crash", &stdio.Options{Stderr: &tee}))
	err := readUntilError(t, c)
	var ee *stdio.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Read() error = %v (%T), want an *ExitError", err, err)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = false", err)
	}
	const tail = "starting\nboom: config missing\n"
	if !ee.Exited || ee.ExitCode != 3 || ee.Signal != "" || string(ee.Stderr) != tail || ee.Pid != c.Pid() {
		t.Errorf("ExitError = %+v, want exit status 3 with stderr %q", ee, tail)
	}
	if want := "stdio: child " + strconv.Itoa(c.Pid()) + " exited with status 3 (stderr: boom: config missing)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	d := c.Diagnose()
	if d == nil || !d.Exited || d.ExitCode != 3 || string(d.Stderr) != tail || d.Err != nil {
		t.Errorf("Diagnose() = %+v, want exit status 3 with the stderr tail and no error", d)
	}
	if _, err := testkit.CloseWithin(t, c, closeLimit); err != nil {
		t.Fatal(err)
	}
	if tee.String() != tail {
		t.Errorf("Options.Stderr got %q, want %q", tee.String(), tail)
	}
}
