package mcptest_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

const self = "github.com/looprig/mcp/mcptest"

// jwtUsers are the packages of the module's client that import golang-jwt
// (private_key_jwt, DPoP proofs). mcptest links them through the
// transports its fakes connect with; none of mcptest's own packages may.
var jwtUsers = []string{"github.com/looprig/mcp/auth", "github.com/looprig/mcp/internal/dpop"}

// deps returns the packages that package mcptest links, each with the
// packages it imports, as go list reports them.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.CommandContext(testkit.Context(t), "go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", self)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	return graph
}

// TestImportsNoScriptsNorAuthServer checks that package mcptest links
// neither testscript nor its own script commands and fake authorization
// server: only users of mcpscript and oauthtest do. golang-jwt comes in
// only through the client's own auth packages (jwtUsers).
func TestImportsNoScriptsNorAuthServer(t *testing.T) {
	leakcheck.Check(t)
	graph := deps(t)
	if len(graph) == 0 {
		t.Fatal("go list reported no packages")
	}
	for p, imps := range graph {
		switch {
		case strings.HasPrefix(p, "github.com/rogpeppe/go-internal/testscript"):
			t.Errorf("package mcptest links %s", p)
		case p == self+"/mcpscript" || p == self+"/oauthtest":
			t.Errorf("package mcptest links %s", p)
		}
		for _, imp := range imps {
			if strings.HasPrefix(imp, "github.com/golang-jwt/jwt") && !slices.Contains(jwtUsers, p) {
				t.Errorf("%s imports %s: only %v may", p, imp, jwtUsers)
			}
		}
	}
}
