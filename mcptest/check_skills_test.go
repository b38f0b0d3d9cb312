package mcptest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/transport"
)

// TestCheckServerChecksSkills: CheckServer passes the rich fake's skill,
// and reports each skill fault as a "skills" problem naming the skill and
// what differed, in process and from a stdio child.
func TestCheckServerChecksSkills(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct{ fault, what string }{
		{"", ""},
		{"skill-digest=pdf-processing", "digest differs"},
		{"skill-size=pdf-processing", "size differs"},
		{"skill-frontmatter=pdf-processing", "frontmatter differs"},
		{"skill-changed=pdf-processing", "digest differs"},
	} {
		var faults []fakeserver.Fault
		if c.fault != "" {
			f, err := fakeserver.ParseFault(c.fault)
			if err != nil {
				t.Fatal(err)
			}
			faults = []fakeserver.Fault{f}
		}
		fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogRich, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		child := mcptest.Stdio(t, &mcptest.StdioOptions{Catalog: fakeserver.CatalogRich, Faults: faults})
		for name, f := range map[string]transport.Factory{"inprocess": fake.Factory(), "stdio": child.Factory()} {
			err := mcptest.CheckServer(testkit.Context(t), f)
			if c.what == "" {
				if err != nil {
					t.Errorf("%s: CheckServer(rich) = %v", name, err)
				}
				continue
			}
			var ce *mcptest.CheckError
			var se *client.SkillError
			if !errors.As(err, &ce) || ce.Check != "skills" || !errors.As(err, &se) || se.Skill != "skill://pdf-processing/SKILL.md" || !strings.Contains(err.Error(), c.what) {
				t.Errorf("%s %s: CheckServer = %v; want a skills problem, %q", name, c.fault, err, c.what)
			}
		}
		fake.Close()
	}
}

// TestGoldenCatalogSkills compares the rich profile's catalog, skills
// listed, with testdata/rich-skills.catalog.txtar; -update rewrites it.
func TestGoldenCatalogSkills(t *testing.T) {
	def := mcptest.InProcess(t, &mcptest.InProcessOptions{Catalog: fakeserver.CatalogRich}).Definition()
	def.Skills = true
	c := mcptest.Connect(t, def, nil)
	if len(c.Catalog().Skills) != 1 {
		t.Fatalf("skills %v; want the rich profile's one", c.Catalog().Skills)
	}
	mcptest.GoldenCatalog(t, "testdata/rich-skills.catalog.txtar", c.Catalog())
}
