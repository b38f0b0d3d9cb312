package client_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/skillmd"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	pdfSkill = "skill://pdf-processing/SKILL.md"
	pdfForms = "skill://pdf-processing/references/FORMS.md"
	pdfMD    = "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\n\nBody.\n"
	formsMD  = "Forms.\n"
)

// skillsFixture is a go-sdk server offering the skills extension whose
// entries and file contents a test sets apart, so that they may differ;
// it counts what the client asked for.
type skillsFixture struct {
	mu      sync.Mutex
	entries []map[string]any  // skills/list's entries, one page each of pageSize
	files   map[string]string // served contents by URI
	extra   map[string]bool   // URIs served with a second content
	reads   map[string]int    // resources/read by URI
	lists   int               // skills/list requests
	caps    []bool            // whether each skills/list's client declared the extension
	page    int
	ttlMs   int // of every read
}

func skillEntry(uri string, fm map[string]any, files map[string]string) map[string]any {
	var res []map[string]any
	for u, body := range files {
		res = append(res, map[string]any{"uri": u, "digest": skillmd.Digest([]byte(body)), "size": len(body)})
	}
	return map[string]any{"uri": uri, "frontmatter": fm, "resources": res}
}

func pdfFrontmatter() map[string]any {
	return map[string]any{"name": "pdf-processing", "description": "Fill PDF forms"}
}

func newSkillsFixture() *skillsFixture {
	files := map[string]string{pdfSkill: pdfMD, pdfForms: formsMD}
	return &skillsFixture{
		entries: []map[string]any{skillEntry(pdfSkill, pdfFrontmatter(), files)},
		files:   files, extra: map[string]bool{}, reads: map[string]int{}, page: 50,
	}
}

type skillListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillListResult struct {
	mcp.ResultBase
	mcp.Cacheable
	Skills     []map[string]any `json:"skills"`
	NextCursor string           `json:"nextCursor,omitempty"`
}

func (f *skillsFixture) server(t *testing.T) *mcp.Server {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	caps.AddExtension(client.SkillsExtension, map[string]any{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "skills", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	err := mcp.AddReceivingCustomMethod(srv, "skills/list", func(_ context.Context, ss *mcp.ServerSession, p *skillListParams) (*skillListResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.lists++
		_, declared := p.GetMeta()["io.modelcontextprotocol/clientCapabilities"].(map[string]any)["extensions"].(map[string]any)[client.SkillsExtension]
		f.caps = append(f.caps, declared)
		lo := 0
		fmt.Sscan(p.Cursor, &lo)
		hi := min(lo+f.page, len(f.entries))
		res := &skillListResult{Cacheable: mcp.Cacheable{TTLMs: 2000, CacheScope: "private"}, Skills: f.entries[lo:hi]}
		if hi < len(f.entries) {
			res.NextCursor = fmt.Sprint(hi)
		}
		return res, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skills"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		uri := req.Params.URI
		f.reads[uri]++
		body, ok := f.files[uri]
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		res := &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{TTLMs: f.ttlMs, CacheScope: "private"},
			Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: body}}}
		if f.extra[uri] {
			res.Contents = append(res.Contents, &mcp.ResourceContents{URI: uri, Text: "more"})
		}
		return res, nil
	})
	return srv
}

func (f *skillsFixture) counts() (lists int, reads map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := map[string]int{}
	for k, v := range f.reads {
		r[k] = v
	}
	return f.lists, r
}

func TestSkillsListedOnlyWhenAsked(t *testing.T) {
	leakcheck.Check(t)
	f := newSkillsFixture()
	c := connect(t, f.server(t), client.Definition{}, nil)
	if lists, _ := f.counts(); lists != 0 || len(c.Catalog().Skills) != 0 {
		t.Errorf("without Definition.Skills: %d skills/list sent, %d skills; want none", lists, len(c.Catalog().Skills))
	}
	c = connect(t, f.server(t), client.Definition{Skills: true}, nil)
	lists, reads := f.counts()
	if lists != 1 || len(reads) != 0 || !f.caps[0] {
		t.Errorf("with Skills: %d lists, reads %v, declared %v; want 1 list, no read, declared", lists, reads, f.caps)
	}
	cat := c.Catalog()
	want := []*client.Skill{{URI: pdfSkill, Frontmatter: pdfFrontmatter(), Files: []client.SkillFile{
		{URI: pdfSkill, Digest: skillmd.Digest([]byte(pdfMD)), Size: len(pdfMD)},
		{URI: pdfForms, Digest: skillmd.Digest([]byte(formsMD)), Size: len(formsMD)},
	}}}
	if diff := cmp.Diff(want, cat.Skills); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if got := cat.Cache["skills"]; got.TTLMs != 2000 || got.CacheScope != "private" {
		t.Errorf("skills cache hint %+v; want 2000 private", got)
	}
}

func TestLoadSkillVerifiesBeforeHandingOver(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct {
		name   string
		tamper func(f *skillsFixture)
		what   string // "" when the skill loads
	}{
		{"matching", func(*skillsFixture) {}, ""},
		{"digest", func(f *skillsFixture) { f.files[pdfSkill] = strings.Replace(pdfMD, "Body.", "Evil.", 1) }, "digest"},
		{"size", func(f *skillsFixture) { f.files[pdfSkill] = pdfMD + "extra" }, "size"},
		{"frontmatter", func(f *skillsFixture) {
			body := strings.Replace(pdfMD, "Fill PDF forms", "Exfiltrate credentials", 1)
			f.files[pdfSkill] = body
			f.entries[0] = skillEntry(pdfSkill, pdfFrontmatter(), map[string]string{pdfSkill: body, pdfForms: formsMD})
		}, "frontmatter"},
		{"frontmatter field added", func(f *skillsFixture) {
			body := strings.Replace(pdfMD, "---\n\n", "allowed-tools: Bash\n---\n\n", 1)
			f.files[pdfSkill] = body
			f.entries[0] = skillEntry(pdfSkill, pdfFrontmatter(), map[string]string{pdfSkill: body, pdfForms: formsMD})
		}, "frontmatter"},
		{"two contents", func(f *skillsFixture) { f.extra[pdfSkill] = true }, "contents"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newSkillsFixture()
			c.tamper(f)
			cl := connect(t, f.server(t), client.Definition{Skills: true}, nil)
			got, err := cl.LoadSkill(backstop(t), pdfSkill)
			_, reads := f.counts()
			if reads[pdfSkill] != 1 || reads[pdfForms] != 0 {
				t.Errorf("reads %v; want SKILL.md once, nothing else", reads)
			}
			if c.what == "" {
				if err != nil || string(got.Manifest) != pdfMD {
					t.Fatalf("LoadSkill = %v, %v", got, err)
				}
				b, err := cl.ReadSkillFile(backstop(t), pdfSkill, pdfForms)
				if err != nil || string(b) != formsMD {
					t.Errorf("ReadSkillFile = %q, %v", b, err)
				}
				return
			}
			var se *client.SkillError
			var ce *client.Error
			if got != nil || !errors.As(err, &se) || !errors.Is(err, &client.ReasonError{Reason: client.ReasonSkillMismatch}) || !errors.As(err, &ce) {
				t.Fatalf("LoadSkill = %v, %v; want nil and a *SkillError in a *client.Error", got, err)
			}
			if se.What != c.what || se.Skill != pdfSkill || ce.Class != client.ClassProtocol || ce.Op != client.OpLoadSkill {
				t.Errorf("error %+v in %+v; want What %q, Skill %q, ClassProtocol", se, ce, c.what, pdfSkill)
			}
		})
	}
}

func TestReadSkillFileVerifies(t *testing.T) {
	leakcheck.Check(t)
	f := newSkillsFixture()
	f.files[pdfForms] = "Forms!\n" // same size, another digest
	cl := connect(t, f.server(t), client.Definition{Skills: true}, nil)
	b, err := cl.ReadSkillFile(backstop(t), pdfSkill, pdfForms)
	var se *client.SkillError
	if b != nil || !errors.As(err, &se) || se.What != "digest" || se.File != pdfForms {
		t.Errorf("ReadSkillFile = %q, %v; want nothing and a digest SkillError", b, err)
	}
	// A file the entry does not list is refused before anything is sent.
	_, err = cl.ReadSkillFile(backstop(t), pdfSkill, "skill://pdf-processing/evil.sh")
	_, err2 := cl.LoadSkill(backstop(t), "skill://nobody/SKILL.md")
	_, reads := f.counts()
	if !errors.Is(err, &client.ReasonError{Reason: client.ReasonUnknownSkill}) || !errors.Is(err2, &client.ReasonError{Reason: client.ReasonUnknownSkill}) ||
		!errors.Is(err, client.ErrUnknownTool) || !errors.Is(err2, client.ErrUnknownTool) || reads["skill://pdf-processing/evil.sh"] != 0 {
		t.Errorf("unlisted file: %v; unknown skill: %v; reads %v", err, err2, reads)
	}
}

func TestSkillEntriesChecked(t *testing.T) {
	leakcheck.Check(t)
	f := newSkillsFixture()
	bad := func(uri string, fm map[string]any, files map[string]string, edit func(map[string]any)) map[string]any {
		e := skillEntry(uri, fm, files)
		if edit != nil {
			edit(e)
		}
		return e
	}
	fm := func(name string) map[string]any { return map[string]any{"name": name, "description": "d"} }
	f.entries = append(f.entries,
		bad("skill://a/SKILL.md", fm("b"), map[string]string{"skill://a/SKILL.md": "x"}, nil),                                           // name differs
		bad("skill://c/SKILL.md", fm("c"), map[string]string{"skill://d/x": "x", "skill://c/SKILL.md": "x"}, nil),                       // outside
		bad("skill://e/SKILL.md", fm("e"), map[string]string{"skill://e/x": "x"}, nil),                                                  // no SKILL.md entry
		bad("skill://g/SKILL.md", fm("g"), map[string]string{"skill://g/SKILL.md": "x"}, func(e map[string]any) { e["resources"] = 3 }), // not a list
		bad("skill://h/SKILL.md", fm("h"), map[string]string{"skill://h/SKILL.md": "x"}, func(e map[string]any) {
			e["resources"].([]map[string]any)[0]["digest"] = "sha256:ABC"
		}),
		bad("skill://i/SKILL.md", fm("i"), map[string]string{"skill://i/SKILL.md": "x"}, func(e map[string]any) { e["resources"] = "dynamic" }), // kept, unverifiable
	)
	cl := connect(t, f.server(t), client.Definition{Skills: true}, nil)
	cat := cl.Catalog()
	var refused []string
	for uri := range cat.RefusedSkills {
		refused = append(refused, uri)
	}
	if diff := cmp.Diff([]string{"skill://a/SKILL.md", "skill://c/SKILL.md", "skill://e/SKILL.md", "skill://g/SKILL.md", "skill://h/SKILL.md"}, sortedURIs(refused)); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if len(cat.Skills) != 2 || cat.Skill("skill://i/SKILL.md") == nil || cat.Skill("skill://i/SKILL.md").Files != nil {
		t.Errorf("skills %v; want pdf-processing and the dynamic i", cat.Skills)
	}
	if _, err := cl.LoadSkill(backstop(t), "skill://i/SKILL.md"); !errors.Is(err, &client.ReasonError{Reason: client.ReasonUnknownSkill}) {
		t.Errorf("LoadSkill(dynamic) = %v; want ReasonUnknownSkill", err)
	}
}

func sortedURIs(s []string) []string { slices.Sort(s); return s }

func TestSkillsBoundedByLimits(t *testing.T) {
	leakcheck.Check(t)
	const n = 6
	f := newSkillsFixture()
	f.entries = nil
	for i := range n {
		uri := fmt.Sprintf("skill://s%d/SKILL.md", i)
		f.entries = append(f.entries, skillEntry(uri, map[string]any{"name": fmt.Sprintf("s%d", i), "description": "d"}, map[string]string{uri: "x"}))
	}
	f.page = 2
	for _, c := range []struct {
		limits client.Limits
		ok     bool
	}{
		{client.Limits{MaxItems: n}, true},
		{client.Limits{MaxItems: n - 1}, false},
		{client.Limits{MaxPages: n / 2}, true},
		{client.Limits{MaxPages: n/2 - 1}, false},
	} {
		def := client.Definition{Name: "skills", Skills: true, Limits: c.limits, Transport: inprocess.New(f.server(t))}
		cl, err := client.Connect(backstop(t), def, nil)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, client.ErrCatalogLimit)) {
			t.Errorf("%+v: Connect = %v; want ok %v or ErrCatalogLimit", c.limits, err, c.ok)
		}
		if err == nil {
			if len(cl.Catalog().Skills) != n {
				t.Errorf("%+v: %d skills, want %d", c.limits, len(cl.Catalog().Skills), n)
			}
			cl.Close()
		}
	}
}

func TestChangedSkillHeldUntilAccepted(t *testing.T) {
	leakcheck.Check(t)
	f := newSkillsFixture()
	first := connect(t, f.server(t), client.Definition{Skills: true}, nil).Catalog()
	// The same catalog, pinned: nothing held.
	cl := connect(t, f.server(t), client.Definition{Skills: true, Fingerprint: first.Fingerprint}, nil)
	if _, err := cl.LoadSkill(backstop(t), pdfSkill); err != nil || cl.Drift() != nil {
		t.Fatalf("pinned, unchanged: %v, drift %v", err, cl.Drift())
	}
	// The skill changes (a new description, consistently in the entry and
	// the file): the pinned client holds it.
	body := strings.Replace(pdfMD, "Fill PDF forms", "Fill PDF forms quickly", 1)
	f.files[pdfSkill] = body
	f.entries[0] = skillEntry(pdfSkill, map[string]any{"name": "pdf-processing", "description": "Fill PDF forms quickly"}, map[string]string{pdfSkill: body, pdfForms: formsMD})
	_, before := f.counts()
	cl = connect(t, f.server(t), client.Definition{Skills: true, Fingerprint: first.Fingerprint, SkillFingerprints: first.SkillFingerprints}, nil)
	if cl.Catalog().Fingerprint == first.Fingerprint {
		t.Fatal("the catalog fingerprint does not cover the skill")
	}
	_, err := cl.LoadSkill(backstop(t), pdfSkill)
	_, after := f.counts()
	if !errors.Is(err, &client.ReasonError{Reason: client.ReasonSkillHeld}) || !errors.Is(err, client.ErrHeld) || after[pdfSkill] != before[pdfSkill] {
		t.Errorf("changed skill: %v, reads %d then %d; want ReasonSkillHeld and no read", err, before[pdfSkill], after[pdfSkill])
	}
	if d := cl.Drift(); d == nil || !cmp.Equal(d.Skills, []string{pdfSkill}) {
		t.Errorf("drift %v; want the skill", d)
	}
	cl.AcceptCatalog()
	if got, err := cl.LoadSkill(backstop(t), pdfSkill); err != nil || string(got.Manifest) != body {
		t.Errorf("after AcceptCatalog: %v, %v", got, err)
	}
}

// TestSkillFileCachedForItsTTL: within the ttlMs of a read (2026-07-28),
// a skill file is not fetched again (the go-sdk's cache, a "private" read
// too: it is the session's); once the TTL has passed it is fetched anew.
// With ttlMs 0, every load fetches.
func TestSkillFileCachedForItsTTL(t *testing.T) {
	leakcheck.Check(t)
	for _, ttlMs := range []int{0, 60_000, 50} {
		f := newSkillsFixture()
		f.ttlMs = ttlMs
		cl := connect(t, f.server(t), client.Definition{Skills: true}, nil)
		load := func() int {
			if _, err := cl.LoadSkill(backstop(t), pdfSkill); err != nil {
				t.Fatal(err)
			}
			_, reads := f.counts()
			return reads[pdfSkill]
		}
		first, second := load(), load()
		switch {
		case ttlMs == 0 && (first != 1 || second != 2):
			t.Errorf("ttlMs 0: reads %d then %d; want 1 then 2", first, second)
		case ttlMs == 60_000 && (first != 1 || second != 1):
			t.Errorf("ttlMs 60000: reads %d then %d; want 1 then 1", first, second)
		case ttlMs == 50:
			testkit.Poll(t, "a read after its 50ms TTL fetches the file again", func() bool { return load() >= 2 })
		}
	}
}
