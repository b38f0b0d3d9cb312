package protocol_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport/sse"
)

func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

var (
	// revisionRE is the shape of a revision: a date. No other date is a
	// literal of this module's code.
	revisionRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	// extensionRE is the shape of an extension's name. The _meta keys
	// (io.modelcontextprotocol/protocolVersion, …) are camel case.
	extensionRE = regexp.MustCompile(`^io\.modelcontextprotocol/[a-z0-9-]+$`)
)

// allowed lists the vocabulary literals kept outside package protocol, by
// file (relative to the module's root) and literal, each with why. It is
// empty: every one is a constant of package protocol.
var allowed = map[string]string{}

// vocabulary returns the literals of f that spell a revision or an
// extension's name, as "line: literal". Struct tags and comments are not
// literals of the code.
func vocabulary(fset *token.FileSet, f *ast.File) []string {
	tags := map[*ast.BasicLit]bool{}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				tags[n.Tag] = true
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING || tags[n] {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err == nil && (revisionRE.MatchString(s) || extensionRE.MatchString(s)) {
				found = append(found, strconv.Itoa(fset.Position(n.Pos()).Line)+": "+n.Value)
			}
		}
		return true
	})
	return found
}

// TestVocabularyFinds checks what vocabulary counts as a literal of the
// vocabulary, and what it does not.
func TestVocabularyFinds(t *testing.T) {
	leakcheck.Check(t)
	const src = `package p

type T struct {
	Caps any ` + "`json:\"io.modelcontextprotocol/tasks\"`" + ` // a tag
}

// A comment names 2026-07-28 and io.modelcontextprotocol/skills.
const rev = "2026-07-28"

var (
	ext   = "io.modelcontextprotocol/skills"
	raw   = ` + "`2025-11-25`" + `
	meta  = "io.modelcontextprotocol/protocolVersion"
	prose = "a server of 2026-07-28 only"
	day   = "2026-07-2"
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`8: "2026-07-28"`, `11: "io.modelcontextprotocol/skills"`, "12: `2025-11-25`"}
	if diff := cmp.Diff(want, vocabulary(fset, f)); diff != "" {
		t.Errorf("vocabulary (-want +got):\n%s", diff)
	}
}

// TestOneDefinition checks that the module's code (its Go files but tests
// and testdata, and but the modules nested in it) spells no revision and
// no extension's name outside package protocol: each is one of its
// constants.
func TestOneDefinition(t *testing.T) {
	leakcheck.Check(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			return skipDir(path, rel, d.Name())
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, lit := range vocabulary(fset, f) {
			_, value, _ := strings.Cut(lit, ": ")
			if _, ok := allowed[rel+" "+value]; !ok {
				t.Errorf("%s:%s: a revision or extension name outside package protocol", rel, lit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d files of %s; the walk missed the module", files, root)
	}
	t.Logf("%d files walked", files)
}

// skipDir says whether the walk leaves the directory out: package
// protocol, testdata, hidden directories, and nested modules.
func skipDir(path, rel, name string) error {
	if rel == "." {
		return nil
	}
	if rel == "protocol" || name == "testdata" || strings.HasPrefix(name, ".") {
		return filepath.SkipDir
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// TestAliases checks that the other packages' names for the vocabulary
// are package protocol's. The task statuses are one type: this file would
// not compile if client's or server's were types of their own.
func TestAliases(t *testing.T) {
	leakcheck.Check(t)
	statuses := []protocol.TaskStatus{client.TaskWorking, server.TaskWorking, client.TaskCancelled, server.TaskCancelled}
	var _ client.TaskStatus = server.TaskCompleted
	if !statuses[3].Terminal() || statuses[0].Terminal() {
		t.Errorf("Terminal: %v", statuses)
	}
	got := []string{
		client.TasksExtension, server.TasksExtension, client.SkillsExtension, server.SkillsExtension,
		fakeserver.Revision20260728, fakeserver.Revision20251125, sse.ProtocolVersion,
		client.Profile20260728.ProtocolVersion(), client.Profile20251125.ProtocolVersion(),
		client.Profile20250618.ProtocolVersion(), client.Profile20250326.ProtocolVersion(),
		client.ProfileLegacy.ProtocolVersion(),
	}
	want := []string{
		protocol.TasksExtension, protocol.TasksExtension, protocol.SkillsExtension, protocol.SkillsExtension,
		protocol.Revision20260728, protocol.Revision20251125, protocol.Revision20241105,
		protocol.Revision20260728, protocol.Revision20251125,
		protocol.Revision20250618, protocol.Revision20250326,
		protocol.Revision20241105,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the other packages' names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[7:], protocol.Revisions()); diff != "" {
		t.Errorf("Revisions (-want +got):\n%s", diff)
	}
}

// TestKnown checks the statuses Known accepts: the five of SEP-2663.
func TestKnown(t *testing.T) {
	leakcheck.Check(t)
	for _, s := range []protocol.TaskStatus{protocol.TaskWorking, protocol.TaskInputRequired, protocol.TaskCompleted, protocol.TaskFailed, protocol.TaskCancelled} {
		if !s.Known() {
			t.Errorf("%q is not Known", s)
		}
	}
	for _, s := range []protocol.TaskStatus{"", "Working", "canceled", "submitted"} {
		if s.Known() {
			t.Errorf("%q is Known", s)
		}
	}
}
