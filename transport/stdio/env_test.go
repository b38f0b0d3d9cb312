package stdio_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/stdio"
)

// childEnviron runs the "env" child with opts and returns its environment.
func childEnviron(t *testing.T, opts *stdio.Options) []string {
	t.Helper()
	c := connect(t, newFactory(t, "env", opts))
	var ee *stdio.ExitError
	if err := readUntilError(t, c); !errors.As(err, &ee) || ee.ExitCode != 0 {
		t.Fatalf("Read() error = %v, want an *ExitError with status 0", err)
	}
	return strings.Split(string(ee.Stderr), "\n")
}

func TestEnvAllowlist(t *testing.T) {
	leakcheck.Check(t)
	t.Setenv("STDIO_TEST_SECRET", "hunter2")
	t.Setenv("HOME", "/home/allowlisted")
	t.Setenv("LANG", "C.UTF-8")

	t.Run("default", func(t *testing.T) {
		want := []string{childEnv + "=env", "EXPLICIT=1", "GORACE=atexit_sleep_ms=0", "LANG=override"}
		for _, name := range stdio.DefaultInheritEnv {
			if v, ok := os.LookupEnv(name); ok && name != "LANG" {
				want = append(want, name+"="+v)
			}
		}
		slices.Sort(want)
		got := childEnviron(t, &stdio.Options{Env: map[string]string{"EXPLICIT": "1", "LANG": "override"}})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
		if !slices.Contains(got, "HOME=/home/allowlisted") {
			t.Errorf("HOME was not inherited: %q", got)
		}
	})
	t.Run("nothing inherited", func(t *testing.T) {
		got := childEnviron(t, &stdio.Options{InheritEnv: []string{}})
		if diff := cmp.Diff([]string{"GORACE=atexit_sleep_ms=0", childEnv + "=env"}, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("named", func(t *testing.T) {
		got := childEnviron(t, &stdio.Options{InheritEnv: []string{"HOME", "NOT_SET_ANYWHERE"}})
		if diff := cmp.Diff([]string{"GORACE=atexit_sleep_ms=0", "HOME=/home/allowlisted", childEnv + "=env"}, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
	})
}
