package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
)

// recordSkill records a 2026-07-28 session of a fake with one skill whose
// SKILL.md has the description desc: listed and loaded.
func recordSkill(t *testing.T, path, desc string) {
	t.Helper()
	fake, err := fakeserver.New(&fakeserver.Options{Custom: skilled(desc)})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	f, err := cassette.Open(path, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "skilled", Profile: client.Profile20260728, Skills: true, Transport: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadSkill(ctx, "skill://notes/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// skilled is a fake with one skill whose SKILL.md has the description desc.
func skilled(desc string) *fakeserver.Catalog {
	return &fakeserver.Catalog{Name: "skilled", Tools: []fakeserver.Tool{{Name: "t", Reply: fakeserver.Text("ok")}}, Skills: []fakeserver.Skill{{
		Path:  "notes",
		Files: map[string]string{"SKILL.md": "---\nname: notes\ndescription: " + desc + "\n---\nBody\n"},
	}}}
}

// TestInspectAndDiffShowSkills: inspect lists a cassette's skills with
// their descriptions; diff reports a skill whose frontmatter changed as
// catalog drift (exit status 1), and two recordings of the same skill as
// none.
func TestInspectAndDiffShowSkills(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	old, same, changed := filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "same.jsonl"), filepath.Join(dir, "changed.jsonl")
	recordSkill(t, old, "Take notes")
	recordSkill(t, same, "Take notes")
	recordSkill(t, changed, "Take notes and send them away")

	code, out, errOut := runMcprig("inspect", old)
	if code != 0 || !strings.Contains(out, "skills (1):\n  skill://notes/SKILL.md: Take notes\n") {
		t.Errorf("inspect = %d, %q, %q; want the skill listed", code, out, errOut)
	}
	if code, out, errOut := runMcprig("diff", old, same); code != 0 {
		t.Errorf("diff of the same skill = %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runMcprig("diff", old, changed)
	if code != 1 || !strings.Contains(out, `skill "skill://notes/SKILL.md"`) {
		t.Errorf("diff of a changed skill = %d:\n%s%s\nwant 1 and the skill named", code, out, errOut)
	}
}

// TestVerifyFindsAChangedSkill: verify of a recording with a skill against
// the live server finds no drift while the skill is the same, and reports
// the skill when its frontmatter changed (exit status 1).
func TestVerifyFindsAChangedSkill(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "skill.jsonl")
	recordSkill(t, path, "Take notes")
	for _, c := range []struct {
		desc string
		code int
	}{{"Take notes", 0}, {"Take notes and send them away", 1}} {
		fake, err := fakeserver.New(&fakeserver.Options{Custom: skilled(c.desc)})
		if err != nil {
			t.Fatal(err)
		}
		hs, err := fake.StartHTTP("", &fakeserver.HTTPOptions{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runMcprig("verify", path, "--upstream", hs.URL)
		hs.Close()
		fake.Close()
		if code != c.code || (c.code == 1 && !strings.Contains(out+errOut, "skill://notes/SKILL.md")) {
			t.Errorf("verify against %q = %d:\n%s%s\nwant %d", c.desc, code, out, errOut, c.code)
		}
	}
}
