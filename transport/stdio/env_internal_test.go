package stdio

import (
	"os"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The child's environment as each system builds it, from a parent's
// environment made up here: Windows compares names ignoring case, keeps the
// parent's spelling of an inherited name, lets an explicit value replace a
// variable whatever the case of its name, and sorts the block by name
// ignoring case; Unix compares names exactly.
func TestBuildEnv(t *testing.T) {
	windowsParent := []string{
		"=C:=C:\\work", // a drive's directory: no variable
		"Path=C:\\Windows;C:\\Go\\bin",
		"SystemRoot=C:\\Windows",
		"windir=C:\\Windows",
		"ComSpec=C:\\Windows\\system32\\cmd.exe",
		"PATHEXT=.COM;.EXE;.BAT",
		"TEMP=C:\\Temp",
		"USERPROFILE=C:\\Users\\ada",
		"AWS_SECRET_ACCESS_KEY=hunter2",
		"GITHUB_TOKEN=ghp_x",
	}
	unixParent := []string{
		"PATH=/usr/bin",
		"Path=/not/the/path",
		"HOME=/home/ada",
		"HOME=/second/home", // a duplicate: the first is the one os.Getenv reads
		"AWS_SECRET_ACCESS_KEY=hunter2",
	}
	tests := []struct {
		name     string
		parent   []string
		inherit  []string
		explicit map[string]string
		fold     bool
		want     []string
	}{
		{
			name:    "windows: the default allowlist, any case",
			parent:  windowsParent,
			inherit: defaultInheritEnv("windows"),
			fold:    true,
			want: []string{
				"ComSpec=C:\\Windows\\system32\\cmd.exe",
				"Path=C:\\Windows;C:\\Go\\bin",
				"PATHEXT=.COM;.EXE;.BAT",
				"SystemRoot=C:\\Windows",
				"TEMP=C:\\Temp",
				"USERPROFILE=C:\\Users\\ada",
				"windir=C:\\Windows",
			},
		},
		{
			name:     "windows: an explicit value replaces an inherited one whatever its case",
			parent:   windowsParent,
			inherit:  []string{"PATH", "systemroot"},
			explicit: map[string]string{"path": "D:\\bin", "API_BASE": "https://example.com"},
			fold:     true,
			want:     []string{"API_BASE=https://example.com", "path=D:\\bin", "SystemRoot=C:\\Windows"},
		},
		{
			name:    "unix: the default allowlist, exact names",
			parent:  unixParent,
			inherit: defaultInheritEnv("linux"),
			want:    []string{"HOME=/home/ada", "PATH=/usr/bin"},
		},
		{
			name:     "unix: names that differ in case are different variables",
			parent:   unixParent,
			inherit:  []string{"Path"},
			explicit: map[string]string{"PATH": "/bin"},
			want:     []string{"PATH=/bin", "Path=/not/the/path"},
		},
		{
			name:    "nothing inherited",
			parent:  windowsParent,
			inherit: []string{},
			fold:    true,
			want:    []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := buildEnv(tt.parent, tt.inherit, tt.explicit, tt.fold)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("buildEnv() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Windows's allowlist holds what a Windows process needs and no
// credential; names are refused where two are the same variable.
func TestWindowsAllowlistAndNames(t *testing.T) {
	list := defaultInheritEnv("windows")
	for _, need := range []string{"SystemRoot", "windir", "COMSPEC", "PATH", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA"} {
		found := false
		for _, n := range list {
			found = found || envKey(n, true) == envKey(need, true)
		}
		if !found {
			t.Errorf("the Windows allowlist lacks %s", need)
		}
	}
	if diff := cmp.Diff(unixInheritEnv, defaultInheritEnv("darwin")); diff != "" {
		t.Errorf("macOS's allowlist mismatch (-want +got):\n%s", diff)
	}
	if err := checkEnv(map[string]string{"Path": "a", "PATH": "b"}, true); err == nil {
		t.Error("checkEnv(Path and PATH, ignoring case) = nil, want an error")
	}
	if err := checkEnv(map[string]string{"Path": "a", "PATH": "b"}, false); err != nil {
		t.Errorf("checkEnv(Path and PATH, exact) = %v, want nil", err)
	}
	for _, bad := range []map[string]string{{"": "x"}, {"A=B": "x"}, {"A": "x\x00y"}} {
		if err := checkEnv(bad, true); err == nil {
			t.Errorf("checkEnv(%q) = nil, want an error", bad)
		}
	}
}

// Where names are compared exactly, environ looks the allowlist up instead
// of copying the environment (lookupEnv): it gives what buildEnv gives over
// the whole environment, for names one of which begins another (sorted by
// name, not by NAME=value), a name allowed twice, an empty value, a name
// unset, and explicit values inside and outside the allowlist.
func TestLookupEnvIsBuildEnv(t *testing.T) {
	if foldEnv(runtime.GOOS) {
		t.Skip("names are compared ignoring case here, where environ does not use lookupEnv")
	}
	for name, v := range map[string]string{"LOOKENV_A": "1", "LOOKENV_A1": "2", "LOOKENV_A_B": "3", "LOOKENV_EMPTY": "", "LOOKENV_Z": "4"} {
		t.Setenv(name, v)
	}
	for _, tc := range []struct {
		name     string
		inherit  []string
		explicit map[string]string
	}{
		{"none", nil, nil},
		{"prefixes", []string{"LOOKENV_A1", "LOOKENV_A", "LOOKENV_A_B"}, nil},
		{"allowed twice", []string{"LOOKENV_Z", "LOOKENV_Z", "LOOKENV_A"}, nil},
		{"empty and unset", []string{"LOOKENV_EMPTY", "LOOKENV_UNSET"}, nil},
		{"explicit over inherited", []string{"LOOKENV_A", "LOOKENV_Z"}, map[string]string{"LOOKENV_A": "mine", "LOOKENV_NEW": "x", "LOOKENV_A0": "y"}},
		{"explicit only", []string{}, map[string]string{"LOOKENV_B": "b", "LOOKENV_A": "a"}},
		{"the default allowlist", defaultInheritEnv("linux"), map[string]string{"LOOKENV_A": "a"}},
	} {
		want := buildEnv(os.Environ(), tc.inherit, tc.explicit, false)
		if diff := cmp.Diff(want, lookupEnv(tc.inherit, tc.explicit)); diff != "" {
			t.Errorf("%s: lookupEnv mismatch (-buildEnv +lookupEnv):\n%s", tc.name, diff)
		}
	}
}
