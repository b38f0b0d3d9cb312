package stdio_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
)

// testExe is the test binary, which the tests start as the child.
func testExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// newFactory returns a factory that starts the test binary in mode, with
// opts (nil: defaults) and the child's mode added to opts.Env.
func newFactory(t testing.TB, mode string, opts *stdio.Options) *stdio.Factory {
	t.Helper()
	var o stdio.Options
	if opts != nil {
		o = *opts
	}
	// GORACE: a race-enabled child otherwise lingers a second at exit.
	env := map[string]string{childEnv: mode, "GORACE": "atexit_sleep_ms=0"}
	for k, v := range o.Env {
		env[k] = v
	}
	o.Env = env
	f, err := stdio.New(testExe(t), nil, &o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// connect starts a child through f, within the test's deadline, and
// closes it at cleanup.
func connect(t testing.TB, f *stdio.Factory) *stdio.Conn {
	t.Helper()
	conn, err := testkit.Transport(t, f).Connect(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	c := conn.(*stdio.Conn)
	t.Cleanup(func() {
		limit := closeLimit
		if t.Failed() {
			limit = time.Second // the test's own Close may be what failed
		}
		testkit.CloseWithin(t, c, limit)
	})
	return c
}

// closeLimit bounds each Close in these tests, far above Close's own bound
// (CloseGrace+TermGrace+5.5s): a Close that hangs fails its test here, not
// at go test's timeout.
const closeLimit = 30 * time.Second

// closerFunc is a function as an io.Closer, for testkit.CloseWithin.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// recordFile returns the path of a fresh record file and the option that
// hands it to the child.
func recordFile(t testing.TB) (string, map[string]string) {
	path := filepath.Join(t.TempDir(), "record")
	return path, map[string]string{recordEnv: path}
}

// readUntilError reads messages from c until Read fails, and returns that error.
func readUntilError(t testing.TB, c *stdio.Conn) error {
	t.Helper()
	for {
		if _, err := c.Read(testkit.Context(t)); err != nil {
			return err
		}
	}
}

// procState is the state letter of process pid in /proc ("Z" for a zombie),
// or "" if there is no such process. Linux only.
func procState(t testing.TB, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// pid (comm) state ...; comm may contain spaces and parentheses.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	return rest[:1]
}

// dead reports whether pid is gone or a zombie.
func dead(t testing.TB, pid int) bool {
	s := procState(t, pid)
	return s == "" || s == "Z" || s == "X"
}

// waitReady waits until the child has recorded "ready".
func waitReady(t testing.TB, path string) {
	t.Helper()
	testkit.Poll(t, "the child is ready", func() bool { return slices.Contains(readRecord(path), "ready") })
}
