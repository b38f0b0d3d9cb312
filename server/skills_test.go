package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/skillmd"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const formsMD = "How to fill PDF forms.\n"

func skillMD(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n\nBody.\n")
}

// testSkillsFS holds two skills, one with a subdirectory.
func testSkillsFS() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: skillMD("pdf-processing", "Fill PDF forms")},
		"pdf-processing/references/FORMS.md": {Data: []byte(formsMD)},
		"pdf-processing/bin/tool":            {Data: []byte{0xff, 0x00, 0xfe}},
		"acme/review/SKILL.md":               {Data: skillMD("review", "Review code")},
	}
}

// skillRawResult is what the tests send and receive: the extension's methods
// as JSON.
type skillRawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *skillRawResult) UnmarshalJSON(b []byte) error {
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

type skillRawParams struct {
	mcp.ParamsBase
	URI    string `json:"uri,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// skillsSession connects a go-sdk client that can send the extension's
// methods to s.
func skillsSession(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	c := testkit.NewClient(nil)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		if err := mcp.AddSendingCustomMethod[*skillRawParams, *skillRawResult](c, m); err != nil {
			t.Fatal(err)
		}
	}
	return testkit.Connect(t, testkit.Transport(t, s.Factory()), &testkit.ConnectOptions{Client: c})
}

func sendSkills(t *testing.T, cs *mcp.ClientSession, method string, p *skillRawParams, out any) error {
	t.Helper()
	skillRes, err := mcp.CallCustomMethod[*skillRawParams, *skillRawResult](testkit.Context(t), cs, method, p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(skillRes.raw, out); err != nil {
		t.Fatalf("%s: %v in %s", method, err, skillRes.raw)
	}
	return nil
}

type skillListPage struct {
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor"`
	TTLMs      *int         `json:"ttlMs"`
	CacheScope string       `json:"cacheScope"`
}

func TestSkillsListPagesDigestsAndReads(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: testSkillsFS(), PageSize: 1, TTL: 1500e6, CacheScope: "private"}})
	cs := skillsSession(t, s)
	var all []skillEntry
	cursor, pages := "", 0
	for {
		var p skillListPage
		if err := sendSkills(t, cs, "skills/list", &skillRawParams{Cursor: cursor}, &p); err != nil {
			t.Fatal(err)
		}
		pages++
		if p.TTLMs == nil || *p.TTLMs != 1500 || p.CacheScope != "private" {
			t.Errorf("page %d: ttlMs %v, cacheScope %q; want 1500, private", pages, p.TTLMs, p.CacheScope)
		}
		all = append(all, p.Skills...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if pages != 2 {
		t.Errorf("%d pages, want 2 of one skill each", pages)
	}
	fs := testSkillsFS()
	want := []skillEntry{
		{URI: "skill://acme/review/SKILL.md", Frontmatter: map[string]any{"name": "review", "description": "Review code"},
			Resources: []skillResource{skillRes("skill://acme/review/SKILL.md", fs["acme/review/SKILL.md"].Data)}},
		{URI: "skill://pdf-processing/SKILL.md", Frontmatter: map[string]any{"name": "pdf-processing", "description": "Fill PDF forms"},
			Resources: []skillResource{
				skillRes("skill://pdf-processing/SKILL.md", fs["pdf-processing/SKILL.md"].Data),
				skillRes("skill://pdf-processing/bin/tool", fs["pdf-processing/bin/tool"].Data),
				skillRes("skill://pdf-processing/references/FORMS.md", []byte(formsMD)),
			}},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	// Every listed file reads back as the bytes its digest and size cover.
	for _, e := range all {
		for _, r := range e.Resources {
			got, err := cs.ReadResource(testkit.Context(t), &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				t.Fatalf("read %s: %v", r.URI, err)
			}
			c := got.Contents[0]
			b := c.Blob
			if c.Text != "" {
				b = []byte(c.Text)
			}
			if skillmd.Digest(b) != r.Digest || len(b) != r.Size {
				t.Errorf("%s: read %d bytes with digest %s; listed %d, %s", r.URI, len(b), skillmd.Digest(b), r.Size, r.Digest)
			}
		}
	}
}

func skillRes(uri string, b []byte) skillResource {
	return skillResource{URI: uri, Digest: skillmd.Digest(b), Size: len(b)}
}

func TestSkillsGetAndUnknownURIs(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: testSkillsFS(), DirectoryRead: true}})
	cs := skillsSession(t, s)
	var got struct {
		Skill      skillEntry `json:"skill"`
		NextCursor *string    `json:"nextCursor"`
		ResultType string     `json:"resultType"`
	}
	if err := sendSkills(t, cs, "skills/get", &skillRawParams{URI: "skill://acme/review/SKILL.md"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Skill.URI != "skill://acme/review/SKILL.md" || got.NextCursor != nil || got.ResultType != "complete" {
		t.Errorf("skills/get = %+v", got)
	}
	for _, c := range []struct{ method, uri, cursor string }{
		{"skills/get", "skill://nobody/SKILL.md", ""},
		{"skills/get", "skill://acme/review", ""},
		{"resources/directory/read", "skill://pdf-processing/SKILL.md", ""},
		{"resources/directory/read", "skill://nobody", ""},
		{"resources/directory/read", "skill://pdf-processing", "bogus"},
		{"skills/list", "", "MQ"}, // index 1 of 2 is valid...
		{"skills/list", "", "Mg"}, // ...index 2 is past the end
	} {
		err := sendSkills(t, cs, c.method, &skillRawParams{URI: c.uri, Cursor: c.cursor}, &json.RawMessage{})
		if c.cursor == "MQ" {
			if err != nil {
				t.Errorf("%s cursor MQ: %v", c.method, err)
			}
			continue
		}
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %q %q: %v; want -32602", c.method, c.uri, c.cursor, err)
		}
	}
}

func TestSkillsDirectoryRead(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: testSkillsFS(), DirectoryRead: true}})
	cs := skillsSession(t, s)
	var got struct {
		Resources []directoryEntry `json:"resources"`
	}
	if err := sendSkills(t, cs, "resources/directory/read", &skillRawParams{URI: "skill://pdf-processing"}, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got.Resources {
		names = append(names, r.Name+" "+r.MIMEType)
	}
	want := []string{"SKILL.md text/markdown", "bin inode/directory", "references inode/directory"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("children (-want +got):\n%s", diff)
	}
	// Without DirectoryRead the method is not found.
	s2 := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: testSkillsFS()}})
	err := sendSkills(t, skillsSession(t, s2), "resources/directory/read", &skillRawParams{URI: "skill://pdf-processing"}, &got)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("directory read without DirectoryRead: %v; want -32601", err)
	}
}

func TestSkillsResultBound(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "skills", "v1", &Options{MaxResultBytes: 200, Skills: &SkillOptions{FS: testSkillsFS()}})
	err := sendSkills(t, skillsSession(t, s), "skills/list", &skillRawParams{}, &json.RawMessage{})
	if err == nil || !strings.Contains(err.Error(), "result too large") {
		t.Errorf("skills/list over MaxResultBytes: %v; want result too large", err)
	}
}

func TestSkillsOptionsRefused(t *testing.T) {
	leakcheck.Check(t)
	many := func(n int) map[string][]byte {
		files := map[string][]byte{"SKILL.md": skillMD("big", "d")}
		for i := 1; i < n; i++ {
			files[fmt.Sprintf("f/%d", i)] = nil
		}
		return files
	}
	sized := func(total int) map[string][]byte {
		md := skillMD("big", "d")
		return map[string][]byte{"SKILL.md": md, "blob": bytes.Repeat([]byte{'x'}, total-len(md))}
	}
	for _, c := range []struct {
		name string
		o    SkillOptions
		ok   bool
	}{
		{"files at the limit", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: many(skillmd.MaxFiles)}}}, true},
		{"files over the limit", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: many(skillmd.MaxFiles + 1)}}}, false},
		{"bytes at the limit", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: sized(skillmd.MaxBytes)}}}, true},
		{"bytes over the limit", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: sized(skillmd.MaxBytes + 1)}}}, false},
		{"name differs from directory", SkillOptions{Skills: []SkillDefinition{{Path: "other", Files: map[string][]byte{"SKILL.md": skillMD("big", "d")}}}}, false},
		{"no SKILL.md", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"README.md": nil}}}}, false},
		{"no description", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"SKILL.md": []byte("---\nname: big\n---\n")}}}}, false},
		{"no frontmatter", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"SKILL.md": []byte("name: big\n")}}}}, false},
		{"bad name", SkillOptions{Skills: []SkillDefinition{{Path: "Big--", Files: map[string][]byte{"SKILL.md": skillMD("Big--", "d")}}}}, false},
		{"path escapes", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"SKILL.md": skillMD("big", "d"), "../x": nil}}}}, false},
		{"control character", SkillOptions{Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"SKILL.md": skillMD("big", "d"), "a\x1bb": nil}}}}, false},
		{"duplicate", SkillOptions{FS: fstest.MapFS{"big/SKILL.md": {Data: skillMD("big", "d")}}, Skills: []SkillDefinition{{Path: "big", Files: map[string][]byte{"SKILL.md": skillMD("big", "d")}}}}, false},
		{"nested skill", SkillOptions{FS: fstest.MapFS{"big/SKILL.md": {Data: skillMD("big", "d")}, "big/small/SKILL.md": {Data: skillMD("small", "d")}}}, false},
		{"negative page size", SkillOptions{PageSize: -1}, false},
		{"unknown cache scope", SkillOptions{CacheScope: "shared"}, false},
	} {
		_, err := New("skills", "v1", &Options{Skills: &c.o})
		if c.ok != (err == nil) {
			t.Errorf("%s: New = %v; want ok %v", c.name, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: %v does not match ErrInvalidOptions", c.name, err)
		}
	}
}

func TestSkillsDeclared(t *testing.T) {
	leakcheck.Check(t)
	for _, dr := range []bool{false, true} {
		s := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: testSkillsFS(), DirectoryRead: dr}})
		caps := connect(t, s).InitializeResult().Capabilities
		got, ok := caps.Extensions[SkillsExtension]
		want := map[string]any{}
		if dr {
			want["directoryRead"] = true
		}
		if !ok || caps.Resources == nil || !cmp.Equal(got, any(want)) {
			t.Errorf("DirectoryRead %v: extension %v (declared %v), resources %v; want %v", dr, got, ok, caps.Resources, want)
		}
	}
	s := newServer(t, "plain", "v1", nil)
	if _, ok := connect(t, s).InitializeResult().Capabilities.Extensions[SkillsExtension]; ok {
		t.Error("a server without Skills declares the extension")
	}
}

// TestSkillsFromFSRegularFilesWithinBounds: a skill directory publishes its
// regular files only (a symlink is left out), and one over 512 files is
// refused, at the edge.
func TestSkillsFromFSRegularFilesWithinBounds(t *testing.T) {
	leakcheck.Check(t)
	withFiles := func(n int) fstest.MapFS {
		m := fstest.MapFS{"big/SKILL.md": {Data: skillMD("big", "d")}, "big/link": {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink}}
		for i := 1; i < n; i++ {
			m[fmt.Sprintf("big/f/%d", i)] = &fstest.MapFile{}
		}
		return m
	}
	s := newServer(t, "skills", "v1", &Options{Skills: &SkillOptions{FS: withFiles(skillmd.MaxFiles)}})
	var got struct {
		Skill skillEntry `json:"skill"`
	}
	if err := sendSkills(t, skillsSession(t, s), "skills/get", &skillRawParams{URI: "skill://big/SKILL.md"}, &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Skill.Resources); n != skillmd.MaxFiles {
		t.Errorf("%d files published, want %d (the symlink left out)", n, skillmd.MaxFiles)
	}
	for _, r := range got.Skill.Resources {
		if strings.HasSuffix(r.URI, "/link") {
			t.Errorf("the symlink was published: %+v", r)
		}
	}
	if _, err := New("skills", "v1", &Options{Skills: &SkillOptions{FS: withFiles(skillmd.MaxFiles + 1)}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("%d files: New = %v; want ErrInvalidOptions", skillmd.MaxFiles+1, err)
	}
}
