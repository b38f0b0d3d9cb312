package stdio

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
)

// DefaultInheritEnv is the allowlist used when [Options.InheritEnv] is nil,
// for the system this program runs on.
//
// On Unix it is what a typical server needs to find these:
//   - programs (PATH);
//   - its configuration and caches (HOME, USER, LOGNAME, SHELL);
//   - temporary files (TMPDIR);
//   - text encoding and locale (LANG, LC_ALL, LC_CTYPE);
//   - time zone (TZ) and terminal type (TERM).
//
// That is the MCP TypeScript SDK's default set, plus locale, temporary
// directory and time zone.
//
// On Windows it is what a process needs to run at all and to find what
// Windows installs:
//   - the system's own directories (SystemRoot, windir, SystemDrive).
//     Without SystemRoot even the network stack fails to load;
//   - the command interpreter (COMSPEC);
//   - programs and their extensions (PATH, PATHEXT);
//   - temporary files (TEMP, TMP);
//   - the user's profile, home and application data (USERPROFILE,
//     HOMEDRIVE, HOMEPATH, APPDATA, LOCALAPPDATA, ProgramData);
//   - installed programs (ProgramFiles, ProgramFiles(x86), ProgramW6432,
//     CommonProgramFiles);
//   - the user's name (USERNAME);
//   - the machine (OS, PROCESSOR_ARCHITECTURE, NUMBER_OF_PROCESSORS).
//
// That is the MCP TypeScript SDK's set for Windows, plus the interpreter,
// extensions, second temporary directory, system and program directories
// and machine description. Names are compared ignoring case there, as
// Windows compares them ("PATH" copies "Path").
//
// Credentials (tokens, cloud keys, SSH agent sockets) are on neither: pass
// what a server needs explicitly in [Options.Env].
var DefaultInheritEnv = defaultInheritEnv(runtime.GOOS)

var (
	unixInheritEnv = []string{
		"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH",
		"SHELL", "TERM", "TMPDIR", "TZ", "USER",
	}
	windowsInheritEnv = []string{
		"APPDATA", "COMSPEC", "CommonProgramFiles", "HOMEDRIVE", "HOMEPATH",
		"LOCALAPPDATA", "NUMBER_OF_PROCESSORS", "OS", "PATH", "PATHEXT",
		"PROCESSOR_ARCHITECTURE", "ProgramData", "ProgramFiles",
		"ProgramFiles(x86)", "ProgramW6432", "SystemDrive", "SystemRoot",
		"TEMP", "TMP", "USERNAME", "USERPROFILE", "windir",
	}
)

// defaultInheritEnv returns the default allowlist for the system goos.
func defaultInheritEnv(goos string) []string {
	if goos == "windows" {
		return slices.Clone(windowsInheritEnv)
	}
	return slices.Clone(unixInheritEnv)
}

// foldEnv reports whether environment variable names are compared
// ignoring case on the system goos.
func foldEnv(goos string) bool { return goos == "windows" }

// envKey is the name as the system compares it.
func envKey(name string, fold bool) string {
	if fold {
		return strings.ToUpper(name)
	}
	return name
}

// checkEnvName reports whether name can be an environment variable name.
func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("invalid environment variable name %q", name)
	}
	return nil
}

// checkEnv checks the names and values of explicit, and that no two of
// its names are the same variable (on a system that ignores case, "Path"
// and "PATH" are).
func checkEnv(explicit map[string]string, fold bool) error {
	seen := make(map[string]string, len(explicit))
	for _, name := range slices.Sorted(maps.Keys(explicit)) {
		if err := checkEnvName(name); err != nil {
			return err
		}
		if strings.ContainsRune(explicit[name], 0) {
			return fmt.Errorf("environment variable %s contains NUL", name)
		}
		k := envKey(name, fold)
		if other, dup := seen[k]; dup {
			return fmt.Errorf("environment variables %s and %s are the same variable here (names ignore case)", other, name)
		}
		seen[k] = name
	}
	return nil
}

// environ is the child's environment: the allowlisted names that are set in
// the parent now, then the explicit values (which win), sorted by name. It is
// never nil, so exec never falls back to the parent's whole environment.
func environ(inherit []string, explicit map[string]string) []string {
	if fold := foldEnv(runtime.GOOS); fold {
		return buildEnv(os.Environ(), inherit, explicit, fold)
	}
	return lookupEnv(inherit, explicit)
}

// lookupEnv is buildEnv over this process's environment where names are
// compared exactly. It looks each allowlisted name up. (os.LookupEnv reads
// a variable set twice as its first setting, as buildEnv does.) It does
// not copy the whole environment and build maps of it, which would cost a
// dozen microseconds of a child's start.
func lookupEnv(inherit []string, explicit map[string]string) []string {
	env := make([]string, 0, len(inherit)+len(explicit))
	for _, name := range inherit {
		if _, ok := explicit[name]; ok {
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for name, v := range explicit {
		env = append(env, name+"="+v)
	}
	slices.SortFunc(env, func(a, b string) int { return strings.Compare(envName(a), envName(b)) })
	// A name the allowlist gives twice is there twice: keep one.
	return slices.CompactFunc(env, func(a, b string) bool { return envName(a) == envName(b) })
}

// envName is the name of the variable kv (NAME=value) sets.
func envName(kv string) string {
	name, _, _ := strings.Cut(kv, "=")
	return name
}

// buildEnv is environ over parent (as os.Environ gives it), with names
// compared as the system compares them: exactly, or ignoring case (fold,
// as on Windows). An inherited variable keeps the parent's spelling of its
// name; an explicit one replaces it whatever the case, with its own. The
// result is sorted by name as the system compares names, as Windows wants
// an environment block.
func buildEnv(parent, inherit []string, explicit map[string]string, fold bool) []string {
	want := make(map[string]bool, len(inherit))
	for _, name := range inherit {
		want[envKey(name, fold)] = true
	}
	vars := make(map[string]string, len(inherit)+len(explicit)) // by key: NAME=value
	for _, kv := range parent {
		// A name never starts with '=' (Windows keeps a drive's
		// directory in "=C:=C:\dir", which is no variable).
		name, _, ok := strings.Cut(kv, "=")
		k := envKey(name, fold)
		if !ok || name == "" || !want[k] {
			continue
		}
		if _, dup := vars[k]; !dup { // the first one, as os.Getenv reads it
			vars[k] = kv
		}
	}
	for name, v := range explicit {
		vars[envKey(name, fold)] = name + "=" + v
	}
	env := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, vars[k])
	}
	return env
}
