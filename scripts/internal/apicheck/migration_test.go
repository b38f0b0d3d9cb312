package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnmentioned: a change is mentioned only by one line that names its
// package and every identifier of its name as whole words.
func TestUnmentioned(t *testing.T) {
	changes := []Change{
		{"server", "(*Server).HTTPHandler: changed from func(*HTTPOptions) *HTTPHandler to func(*HTTPOptions) (*HTTPHandler, error)"},
		{"mcptest", "HTTP: changed from func(testing.TB, *FakeOptions) *Fake to func(testing.TB, *HTTPOptions) *Fake"},
		{"client", "ClassAuth: changed from FailureClass to github.com/looprig/mcp/transport.Class"},
		{"cassette", "Options.FS: removed"},
		{"mcptest", "Wrap: changed from func[S Servable](testing.TB, S, *FakeOptions) *Fake to func[S Servable](testing.TB, S, *WrapOptions) *Fake"},
		{"github.com/looprig/mcp/transport/sse", "package removed"},
		{"fakeserver", "(*Box[T]).Get: removed"},
	}
	all := []string{"server.(*Server).HTTPHandler", "mcptest.HTTP", "client.ClassAuth", "cassette.Options.FS", "mcptest.Wrap", "github.com/looprig/mcp/transport/sse.(package)", "fakeserver.(*Box[T]).Get"}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"nothing", "", all},
		{"each on a line of its own", strings.Join([]string{
			"| `h, err := (*server.Server).HTTPHandler(opts)` |",
			"| `mcptest.HTTP(t, &mcptest.HTTPOptions{…})` |",
			"| `client.ClassStart`, `ClassAuth` | `transport.ClassAuth` |",
			"| `cassette.Options.FS` | `vcr.Options.FS` |",
			"| `mcptest.Wrap(t, s, &mcptest.WrapOptions{…})` |",
			"| the package `transport/sse` |",
			"| `(*fakeserver.Box).Get` |",
		}, "\n"), nil},
		{"the member without its type or package", "| `srv.HTTPHandler(opts)` |\n| `Options.FS` |", all},
		{"a longer word is not the name", "| `mcptest.HTTPOptions`, `mcptest.WrapOptions` |", all},
		{"the package and the name on two lines", "| `server.Server` |\n| `HTTPHandler` |", all},
		{"the same name in another package's line", "| `transport.ClassAuth` |", all},
		{"all but one", strings.Join([]string{
			"| `(*server.Server).HTTPHandler` | `mcptest.HTTP` | `client.ClassAuth` | `cassette.Options.FS` |",
			"| `mcptest.Wrap` | `transport/sse` |",
		}, "\n"), []string{"fakeserver.(*Box[T]).Get"}},
	} {
		if diff := cmp.Diff(tt.want, unmentioned(tt.text, changes)); diff != "" {
			t.Errorf("%s: unmentioned mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMigrationText reads the Migration subsection of the version's own
// section, and stops at the next heading.
func TestMigrationText(t *testing.T) {
	const cl = "# Changelog\n\n## [0.3.0] - Unreleased\n\n### Migration\n\n| a |\n\n" +
		"## [0.2.0] - Unreleased\n\n### Added\n\n- b\n\n### Migration\n\n| c |\n\n### Fixed\n\n- d\n\n" +
		"## [0.1.1] - 2026-11-30\n\n### Fixed\n\n- e\n\n## [0.1.0] - 2026-11-01\n\n### Migration\n\n| f |\n"
	for _, tt := range []struct {
		v    semver
		want string
		ok   bool
	}{
		{semver{0, 3, 0}, "\n| a |\n\n", true},
		{semver{0, 2, 0}, "\n| c |\n\n", true},
		{semver{0, 1, 1}, "", false},
		{semver{0, 1, 0}, "\n| f |\n", true},
		{semver{0, 4, 0}, "", false},
	} {
		got, ok := migrationText(cl, tt.v)
		if got != tt.want || ok != tt.ok {
			t.Errorf("migrationText(%s) = %q, %v; want %q, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCheckMigration: an incompatible change needs its mention in the
// Migration table of the version's section; a compatible one needs none.
func TestCheckMigration(t *testing.T) {
	two := Report{Incompatible: []Change{
		{"client", "DefaultImplementation: changed from func() to func(...int)"},
		{"server", "New: changed from func(string, string, *Options) *Server to func(string, string, *Options) (*Server, error)"},
	}}
	for _, tt := range []struct {
		name, changelog string
		report          Report
		wantFail        string
	}{
		{"both mentioned", "## [0.2.0] - Unreleased\n\n### Migration\n\n| `client.DefaultImplementation()` |\n| `server.New` |\n", two, ""},
		{"one left out", "## [0.2.0] - Unreleased\n\n### Migration\n\n| `client.DefaultImplementation()` |\n", two,
			"does not mention 1 incompatible changes (a line naming the package and the name): server.New"},
		{"mentioned only under Changed", "## [0.2.0] - Unreleased\n\n### Migration\n\n| `client.DefaultImplementation()` |\n\n### Changed\n\n- `server.New`\n", two,
			"server.New"},
		{"no Migration subsection", "## [0.2.0] - Unreleased\n\n### Changed\n\n- `server.New`\n", two,
			"no \"### Migration\" subsection for its 2 incompatible changes"},
		{"compatible changes need none", "## [0.2.0] - Unreleased\n", compatible, ""},
	} {
		err := checkMigration(tt.changelog, semver{0, 2, 0}, tt.report)
		switch {
		case tt.wantFail == "" && err != nil:
			t.Errorf("%s: checkMigration: %v, want nil", tt.name, err)
		case tt.wantFail != "" && (err == nil || !strings.Contains(err.Error(), tt.wantFail)):
			t.Errorf("%s: checkMigration: %v, want an error with %q", tt.name, err, tt.wantFail)
		}
	}
	// Through Check, as scripts/apicheck runs it.
	in := Input{Base: "v0.1.0", Version: "v0.2.0", Report: two, Changelog: "## [0.2.0] - Unreleased\n\n### Migration\n\n| `server.New` |\n"}
	if err := Check(in); err == nil || !strings.Contains(err.Error(), "client.DefaultImplementation") {
		t.Errorf("Check: %v, want an error naming client.DefaultImplementation", err)
	}
}
