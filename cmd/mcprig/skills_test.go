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
	d := &fakeserver.Definition{Name: "skilled", Tools: []fakeserver.Tool{{Name: "t", Reply: fakeserver.Text("ok")}}, Skills: []fakeserver.Skill{{
		Path:  "notes",
		Files: map[string]string{"SKILL.md": "---\nname: notes\ndescription: " + desc + "\n---\nBody\n"},
	}}}
	fake, err := fakeserver.New(&fakeserver.Options{Definition: d})
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
