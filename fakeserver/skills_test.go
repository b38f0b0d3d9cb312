package fakeserver

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	richSkill = "skill://pdf-processing/SKILL.md"
	richForms = "skill://pdf-processing/references/FORMS.md"
)

// readCounter counts the resources/read requests a fake received, by URI.
type readCounter struct {
	mu    sync.Mutex
	reads map[string]int
}

func countReads(fs *Server) *readCounter {
	rc := &readCounter{reads: map[string]int{}}
	fs.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.ReadResourceRequest); ok {
				rc.mu.Lock()
				rc.reads[r.Params.URI]++
				rc.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return rc
}

func (rc *readCounter) get(uri string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.reads[uri]
}

// skillTransports are the ways a test reaches a fake: in process and
// over Streamable HTTP.
func skillTransports(t *testing.T, fs *Server) map[string]transport.Factory {
	hs, err := fs.StartHTTP("", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	f, err := streamablehttp.New(hs.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]transport.Factory{"inprocess": fs.Factory(), "http": f}
}

// TestSkillFaultsRefusedByClient: each skill fault, in its text form, makes
// the client refuse the rich catalog's skill with a *client.SkillError
// naming it and what differed. The SKILL.md is read once, nothing of it
// reaches the caller, and no other file of the skill is read.
func TestSkillFaultsRefusedByClient(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct {
		fault, what string // what = "": loads
	}{
		{"", ""},
		{"skill-digest@pdf-processing", "digest"},
		{"skill-size@pdf-processing", "size"},
		{"skill-frontmatter@pdf-processing", "frontmatter"},
		{"skill-changed@pdf-processing", "digest"},
	} {
		var faults []Fault
		if c.fault != "" {
			f, err := ParseFault(c.fault)
			if err != nil {
				t.Fatal(err)
			}
			if f.String() != c.fault {
				t.Errorf("ParseFault(%q).String() = %q", c.fault, f.String())
			}
			faults = append(faults, f)
		}
		fs := newFake(t, &Options{Catalog: CatalogRich, Faults: faults})
		t.Cleanup(func() { fs.Close() })
		reads := countReads(fs)
		for name, f := range skillTransports(t, fs) {
			before := reads.get(richSkill)
			cl, err := client.Connect(testkit.Context(t), client.Definition{Name: "rich", Skills: true, Transport: f}, nil)
			if err != nil {
				t.Fatalf("%s %s: Connect: %v", c.fault, name, err)
			}
			if got := reads.get(richSkill) - before; got != 0 {
				t.Errorf("%s %s: connecting read the SKILL.md %d times; want none", c.fault, name, got)
			}
			loaded, err := cl.LoadSkill(testkit.Context(t), richSkill)
			handed := 0
			if loaded != nil {
				handed = len(loaded.Manifest)
			}
			if got := reads.get(richSkill) - before; got != 1 || reads.get(richForms) != 0 {
				t.Errorf("%s %s: SKILL.md read %d times, FORMS.md %d; want once and never", c.fault, name, got, reads.get(richForms))
			}
			var se *client.SkillError
			switch {
			case c.what == "" && (err != nil || handed == 0):
				t.Errorf("%s: LoadSkill = %d bytes, %v; want the skill", name, handed, err)
			case c.what != "" && (handed != 0 || !errors.As(err, &se) || se.What != c.what || se.Skill != richSkill):
				t.Errorf("%s %s: LoadSkill handed %d bytes, error %v; want none and a %s SkillError for %s", c.fault, name, handed, err, c.what, richSkill)
			}
			cl.Close()
		}
	}
}

func TestSkillFaultNeedsASkill(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range []Fault{{Kind: FaultSkillDigest, Tool: "nobody"}, {Kind: FaultSkillSize}} {
		if _, err := New(&Options{Catalog: CatalogRich, Faults: []Fault{f}}); !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("fault %+v: New = %v; want ErrBadFault", f, err)
		}
	}
	if _, err := New(&Options{Catalog: CatalogDocs, Faults: []Fault{{Kind: FaultSkillDigest, Tool: "pdf-processing"}}}); !errors.Is(err, transport.ErrBadFault) {
		t.Errorf("a skill fault on a catalog without skills: %v; want ErrBadFault", err)
	}
}

func TestCustomSkills(t *testing.T) {
	leakcheck.Check(t)
	d := &Catalog{Name: "skilled", Tools: []Tool{{Name: "t", Reply: Text("ok")}}, Skills: []Skill{{
		Path:  "acme/notes",
		Files: map[string]string{"SKILL.md": "---\nname: notes\ndescription: Take notes\n---\nBody\n", "a.txt": "A"},
	}}}
	fs := newFake(t, &Options{Custom: d})
	defer fs.Close()
	cl, err := client.Connect(testkit.Context(t), client.Definition{Name: "skilled", Skills: true, Transport: fs.Factory()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.LoadSkill(testkit.Context(t), "skill://acme/notes/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if b, err := cl.ReadSkillFile(testkit.Context(t), "skill://acme/notes/SKILL.md", "skill://acme/notes/a.txt"); err != nil || string(b) != "A" {
		t.Errorf("ReadSkillFile = %q, %v", b, err)
	}
	// A skill whose frontmatter name is not its directory's is refused.
	d.Skills[0].Path = "acme/other"
	if _, err := New(&Options{Custom: d}); err == nil {
		t.Error("New accepted a skill named unlike its directory")
	}
}
