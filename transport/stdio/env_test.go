package stdio_test

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/stdio"
)

// allowed reports whether name is on stdio.DefaultInheritEnv, as this
// system compares names.
func allowed(name string) bool {
	return slices.ContainsFunc(stdio.DefaultInheritEnv, func(n string) bool {
		return n == name || runtime.GOOS == "windows" && strings.EqualFold(n, name)
	})
}

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
	// home is on the allowlist; LANG is overridden explicitly.
	home := "HOME"
	if runtime.GOOS == "windows" {
		home = "USERPROFILE"
	}
	t.Setenv("STDIO_TEST_SECRET", "hunter2")
	t.Setenv(home, "/home/allowlisted")
	t.Setenv("LANG", "C.UTF-8")

	t.Run("default", func(t *testing.T) {
		want := []string{childEnv + "=env", "EXPLICIT=1", "GORACE=atexit_sleep_ms=0", "LANG=override"}
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if allowed(name) && !strings.EqualFold(name, "LANG") {
				want = append(want, kv) // as the parent spells it
			}
		}
		slices.Sort(want)
		got := childEnviron(t, &stdio.Options{Env: map[string]string{"EXPLICIT": "1", "LANG": "override"}})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
		if !slices.Contains(got, home+"=/home/allowlisted") {
			t.Errorf("%s was not inherited: %q", home, got)
		}
	})
	t.Run("nothing inherited", func(t *testing.T) {
		got := childEnviron(t, &stdio.Options{InheritEnv: []string{}})
		want := []string{"GORACE=atexit_sleep_ms=0", childEnv + "=env"}
		if runtime.GOOS == "windows" { // os/exec adds it: nothing runs without it
			want = append(want, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
			slices.Sort(want)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("named", func(t *testing.T) {
		got := childEnviron(t, &stdio.Options{InheritEnv: []string{home, "NOT_SET_ANYWHERE"}})
		want := []string{"GORACE=atexit_sleep_ms=0", home + "=/home/allowlisted", childEnv + "=env"}
		if runtime.GOOS == "windows" {
			want = append(want, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
		}
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("child environment mismatch (-want +got):\n%s", diff)
		}
	})
}

// On Unix a name is its exact spelling: with Path, home and Lang set beside
// PATH and HOME, the child gets PATH and HOME and none of the others, with
// the default allowlist or one that names them in another case. (Windows
// compares names ignoring case; TestBuildEnv holds it there.)
func TestEnvAllowlistExactCase(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("names ignore case on Windows: Path and PATH are one variable")
	}
	leakcheck.Check(t)
	t.Setenv("PATH", os.Getenv("PATH"))
	t.Setenv("HOME", "/home/right")
	t.Setenv("Path", "/wrong/path")
	t.Setenv("home", "/wrong/home")
	t.Setenv("Lang", "wrong")
	t.Setenv("LANG", "")
	os.Unsetenv("LANG")
	base := []string{"GORACE=atexit_sleep_ms=0", childEnv + "=env"}
	for _, tc := range []struct {
		name    string
		inherit []string
		want    []string
	}{
		{"default allowlist", nil, []string{"HOME=/home/right", "PATH=" + os.Getenv("PATH")}},
		{"upper case named", []string{"PATH", "HOME", "LANG"}, []string{"HOME=/home/right", "PATH=" + os.Getenv("PATH")}},
		{"other case named", []string{"path", "Home", "LANG"}, nil},
		{"exact other case named", []string{"Path", "home"}, []string{"Path=/wrong/path", "home=/wrong/home"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := childEnviron(t, &stdio.Options{InheritEnv: tc.inherit})
			got = slices.DeleteFunc(got, func(kv string) bool {
				name, _, _ := strings.Cut(kv, "=")
				return tc.inherit == nil && allowed(name) && name != "HOME" && name != "PATH"
			})
			want := append(slices.Clone(base), tc.want...)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("child environment mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
