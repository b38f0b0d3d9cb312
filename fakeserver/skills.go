package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Skill is one skill of a [Catalog] (the skills extension, SEP-2640):
// a directory of files with a SKILL.md at its root, published at
// skill://<Path>/SKILL.md. The fake computes each file's digest and size.
type Skill struct {
	// Path is the skill's path, such as "pdf-processing"; its last segment
	// is the skill's name and must be the SKILL.md frontmatter's name.
	Path string
	// Files are the skill's files by path within the skill; SKILL.md is
	// required.
	Files map[string]string
}

// The fault kinds of the skills extension. Each names a skill (KIND@SKILL,
// the skill's name in Fault.Tool) whose SKILL.md the client must refuse to
// load: its entry, or the file it reads, lies.
const (
	// FaultSkillDigest lists the SKILL.md with a digest that is not its
	// content's.
	FaultSkillDigest FaultKind = "skill-digest"
	// FaultSkillSize lists the SKILL.md one byte longer than it is.
	FaultSkillSize FaultKind = "skill-size"
	// FaultSkillFrontmatter lists a frontmatter whose description differs
	// from the SKILL.md's (its digest and size are the file's).
	FaultSkillFrontmatter FaultKind = "skill-frontmatter"
	// FaultSkillChanged serves a SKILL.md that changed after it was
	// listed: as many bytes, one of them different.
	FaultSkillChanged FaultKind = "skill-changed"
)

var skillKinds = []FaultKind{FaultSkillDigest, FaultSkillSize, FaultSkillFrontmatter, FaultSkillChanged}

func isSkillKind(k FaultKind) bool { return slices.Contains(skillKinds, k) }

// richSkills are the rich catalog's skills.
var richSkills = []server.SkillDefinition{{
	Path: "pdf-processing",
	Files: map[string][]byte{
		"SKILL.md":            []byte("---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nRead references/FORMS.md before filling a form.\n"),
		"references/FORMS.md": []byte("Fill each field, then flatten the form.\n"),
	},
}}

// skillDefinitions converts a Catalog's skills for the server package.
func skillDefinitions(skills []Skill) []server.SkillDefinition {
	out := make([]server.SkillDefinition, len(skills))
	for i, sk := range skills {
		files := make(map[string][]byte, len(sk.Files))
		for p, body := range sk.Files {
			files[p] = []byte(body)
		}
		out[i] = server.SkillDefinition{Path: sk.Path, Files: files}
	}
	return out
}

// skillOptions publishes skills, or nil when there are none.
func skillOptions(skills []server.SkillDefinition) *server.SkillOptions {
	if len(skills) == 0 {
		return nil
	}
	return &server.SkillOptions{Skills: skills, DirectoryRead: true}
}

// hasSkill reports whether the catalog publishes a skill named name.
func (c served) hasSkill(name string) bool {
	return slices.ContainsFunc(c.skills, func(d server.SkillDefinition) bool {
		return d.Path == name || strings.HasSuffix(d.Path, "/"+name)
	})
}

// installSkillFaults applies the skill faults of s, in a middleware that
// edits skills/list, skills/get and resources/read results.
func (s *Server) installSkillFaults(c served) error {
	tampered := map[string]FaultKind{} // by skill name
	for _, f := range s.faults {
		if !isSkillKind(f.Kind) {
			continue
		}
		if !c.hasSkill(f.Tool) {
			return fmt.Errorf("fakeserver: fault %q: %w: catalog %q has no skill %q", f, transport.ErrBadFault, s.name, f.Tool)
		}
		tampered[f.Tool] = f.Kind
	}
	if len(tampered) == 0 {
		return nil
	}
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch method {
			case "skills/list", "skills/get":
				return tamperEntries(res, tampered)
			case "resources/read":
				if r, ok := res.(*mcp.ReadResourceResult); ok {
					return changedRead(r, tampered), nil
				}
			}
			return res, nil
		}
	})
	return nil
}

// skillName is the name of the skill whose SKILL.md is at uri, or "".
func skillName(uri string) string {
	dir, ok := strings.CutSuffix(uri, "/SKILL.md")
	if !ok {
		return ""
	}
	return dir[strings.LastIndex(dir, "/")+1:]
}

// changedRead changes one byte of each SKILL.md read of a skill under
// FaultSkillChanged.
func changedRead(r *mcp.ReadResourceResult, tampered map[string]FaultKind) *mcp.ReadResourceResult {
	if len(r.Contents) != 1 || tampered[skillName(r.Contents[0].URI)] != FaultSkillChanged || r.Contents[0].Text == "" {
		return r
	}
	out := *r
	c := *r.Contents[0]
	b := []byte(c.Text)
	i := len(b) - 1
	if b[i] == 'X' {
		b[i] = 'Y'
	} else {
		b[i] = 'X'
	}
	c.Text = string(b)
	out.Contents = []*mcp.ResourceContents{&c}
	return &out
}

// tamperEntries edits the entries of skills under the entry faults.
func tamperEntries(res mcp.Result, tampered map[string]FaultKind) (mcp.Result, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var entries []any
	if list, ok := m["skills"].([]any); ok {
		entries = list
	} else if one, ok := m["skill"]; ok {
		entries = []any{one}
	}
	for _, e := range entries {
		tamperEntry(e.(map[string]any), tampered)
	}
	out, err := json.Marshal(m)
	return &skillRawResult{raw: out}, err
}

func tamperEntry(e map[string]any, tampered map[string]FaultKind) {
	uri, _ := e["uri"].(string)
	kind := tampered[skillName(uri)]
	if kind == FaultSkillFrontmatter {
		fm, _ := e["frontmatter"].(map[string]any)
		fm["description"] = "Tampered: " + fmt.Sprint(fm["description"])
		return
	}
	files, _ := e["resources"].([]any)
	for _, f := range files {
		f := f.(map[string]any)
		if f["uri"] != uri {
			continue
		}
		switch kind {
		case FaultSkillDigest:
			d := []byte(f["digest"].(string))
			if d[len(d)-1] == '0' {
				d[len(d)-1] = '1'
			} else {
				d[len(d)-1] = '0'
			}
			f["digest"] = string(d)
		case FaultSkillSize:
			f["size"] = f["size"].(float64) + 1
		}
	}
}

// skillRawResult is a result sent as given JSON, with the _meta the go-sdk
// sets on it merged in.
type skillRawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *skillRawResult) MarshalJSON() ([]byte, error) {
	meta := r.GetMeta()
	if len(meta) == 0 {
		return r.raw, nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.raw, &m); err != nil {
		return nil, err
	}
	m["_meta"] = meta
	return json.Marshal(m)
}
