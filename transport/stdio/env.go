package stdio

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// DefaultInheritEnv is the allowlist used when [Options.InheritEnv] is nil:
// what a typical server needs to find programs (PATH), its configuration and
// caches (HOME, USER, LOGNAME, SHELL), temporary files (TMPDIR), text
// encoding and locale (LANG, LC_ALL, LC_CTYPE), time zone (TZ) and terminal
// type (TERM): the MCP TypeScript SDK's default set, plus locale, temporary
// directory and time zone.
// Credentials (tokens, cloud keys, SSH agent sockets) are never on it: pass
// what a server needs explicitly in [Options.Env].
var DefaultInheritEnv = []string{
	"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH",
	"SHELL", "TERM", "TMPDIR", "TZ", "USER",
}

// checkEnvName reports whether name can be an environment variable name.
func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("invalid environment variable name %q", name)
	}
	return nil
}

// environ is the child's environment: the allowlisted names that are set in
// the parent now, then the explicit values (which win), sorted by name. It is
// never nil, so exec never falls back to the parent's whole environment.
func environ(inherit []string, explicit map[string]string) []string {
	vals := make(map[string]string, len(inherit)+len(explicit))
	for _, name := range inherit {
		if v, ok := os.LookupEnv(name); ok {
			vals[name] = v
		}
	}
	for name, v := range explicit {
		vals[name] = v
	}
	env := make([]string, 0, len(vals))
	for name, v := range vals {
		env = append(env, name+"="+v)
	}
	slices.Sort(env)
	return env
}
