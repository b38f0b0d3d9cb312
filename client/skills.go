package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/internal/skillmd"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the client side of the skills extension
// (io.modelcontextprotocol/skills, SEP-2640). The go-sdk v1.8.0 has none
// of it: skills/list is sent as a go-sdk custom method
// (mcp.CallCustomMethod), and skill files are read with resources/read.
// Listing fetches no file; LoadSkill and ReadSkillFile fetch one file each
// and verify it against the skill's entry before returning anything.

// SkillsExtension is the name of the skills extension (SEP-2640).
const SkillsExtension = protocol.SkillsExtension

const methodSkillsList = "skills/list"

// OpLoadSkill is the Op of LoadSkill and ReadSkillFile errors.
const OpLoadSkill = "load skill"

// A Skill is one entry of the server's skills/list: the URI of its
// SKILL.md, its frontmatter, and its files with their digests and sizes.
type Skill struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	// Files lists every file of the skill, SKILL.md among them, sorted by
	// URI. It is nil for a skill whose files the server lists as
	// "dynamic": nothing of such a skill can be verified, and LoadSkill
	// and ReadSkillFile refuse it (ReasonUnknownSkill).
	Files []SkillFile `json:"files"`
}

// Name is the skill's name (frontmatter name).
func (s *Skill) Name() string { n, _ := s.Frontmatter["name"].(string); return n }

// File returns the entry of the file at uri, or nil.
func (s *Skill) File(uri string) *SkillFile {
	for i := range s.Files {
		if s.Files[i].URI == uri {
			return &s.Files[i]
		}
	}
	return nil
}

// A SkillFile is one file of a skill's entry.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // "sha256:" and 64 lowercase hex digits
	Size   int    `json:"size"`   // bytes
}

// Skill returns the skill whose SKILL.md is at uri, or nil.
func (c *Catalog) Skill(uri string) *Skill {
	i, ok := slices.BinarySearchFunc(c.Skills, uri, func(s *Skill, uri string) int { return strings.Compare(s.URI, uri) })
	if !ok {
		return nil
	}
	return c.Skills[i]
}

// A SkillError says how a fetched skill file differs from its entry.
// Nothing of the file was handed to the caller.
type SkillError struct {
	Skill string // the skill's SKILL.md URI
	File  string // the file's URI
	// What differed: "size", "digest", "frontmatter" or "contents"
	// (not one content for the file).
	What   string
	Detail string // the entry's value and the file's, or the fields that differ
}

func (e *SkillError) Error() string {
	return fmt.Sprintf("skill %q: file %q: %s differs: %s", e.Skill, e.File, e.What, e.Detail)
}

// Unwrap returns a *ReasonError of ReasonSkillMismatch.
func (e *SkillError) Unwrap() error { return reasonErr(ReasonSkillMismatch) }

// A LoadedSkill is a skill whose SKILL.md was fetched and verified.
type LoadedSkill struct {
	Skill    *Skill
	Manifest []byte // the SKILL.md, as verified
}

// LoadSkill fetches the SKILL.md of the skill at uri and verifies its
// size, digest and frontmatter (field by field) against the catalog's
// entry. On any difference it returns an *Error wrapping a *SkillError,
// and nothing of the file. It fetches no other file. Within the ttlMs of
// a read (protocol 2026-07-28) the go-sdk answers a repeated read from its
// cache, per session; the answer is verified again each time.
func (c *Client) LoadSkill(ctx context.Context, uri string) (*LoadedSkill, error) {
	sk, err := c.skill(uri)
	if err != nil {
		return nil, err
	}
	b, err := c.fetchSkillFile(ctx, sk, uri)
	if err != nil {
		return nil, err
	}
	fm, err := skillmd.Frontmatter(b)
	if err != nil {
		return nil, c.skillFail(&SkillError{Skill: uri, File: uri, What: "frontmatter", Detail: fmt.Sprintf("%q", err.Error())})
	}
	if diffs := skillmd.Differences(fm, sk.Frontmatter); len(diffs) > 0 {
		return nil, c.skillFail(&SkillError{Skill: uri, File: uri, What: "frontmatter", Detail: strings.Join(diffs, "; ")})
	}
	return &LoadedSkill{Skill: sk, Manifest: b}, nil
}

// ReadSkillFile fetches one file of the skill at skill and verifies its
// size and digest against the entry, as LoadSkill does.
func (c *Client) ReadSkillFile(ctx context.Context, skill, file string) ([]byte, error) {
	sk, err := c.skill(skill)
	if err != nil {
		return nil, err
	}
	return c.fetchSkillFile(ctx, sk, file)
}

// skill returns the catalog's skill at uri, unless it is unknown or held.
func (c *Client) skill(uri string) (*Skill, error) {
	c.mu.Lock()
	sk := c.catalog.Skill(uri)
	held := sk != nil && c.def.Fingerprint != "" && c.acceptedSkills[uri] != c.catalog.SkillFingerprints[uri]
	c.mu.Unlock()
	switch {
	case sk == nil:
		return nil, &Error{Class: ClassPolicy, Op: OpLoadSkill, Server: c.def.Name, Err: fmt.Errorf("%w: %q", reasonErr(ReasonUnknownSkill), uri)}
	case held:
		return nil, &Error{Class: ClassPolicy, Op: OpLoadSkill, Server: c.def.Name, Err: fmt.Errorf("%w: %q", reasonErr(ReasonSkillHeld), uri)}
	}
	return sk, nil
}

// fetchSkillFile reads file of sk and checks it against its entry: one
// content, of the entry's size, with the entry's digest.
func (c *Client) fetchSkillFile(ctx context.Context, sk *Skill, file string) ([]byte, error) {
	entry := sk.File(file)
	if entry == nil {
		return nil, &Error{Class: ClassPolicy, Op: OpLoadSkill, Server: c.def.Name,
			Err: fmt.Errorf("%w: skill %q lists no file %q", reasonErr(ReasonUnknownSkill), sk.URI, file)}
	}
	res, err := c.ReadResource(ctx, file)
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 || res.Contents[0] == nil || res.Contents[0].URI != file {
		return nil, c.skillFail(&SkillError{Skill: sk.URI, File: file, What: "contents", Detail: fmt.Sprintf("%d contents, want one for the file", len(res.Contents))})
	}
	rc := res.Contents[0]
	b := bytes.Clone(rc.Blob) // the go-sdk's cache may hold rc
	if rc.Blob == nil {
		b = []byte(rc.Text)
	}
	if len(b) != entry.Size {
		return nil, c.skillFail(&SkillError{Skill: sk.URI, File: file, What: "size", Detail: fmt.Sprintf("entry %d bytes, file %d", entry.Size, len(b))})
	}
	if got := skillmd.Digest(b); got != entry.Digest {
		return nil, c.skillFail(&SkillError{Skill: sk.URI, File: file, What: "digest", Detail: fmt.Sprintf("entry %s, file %s", entry.Digest, got)})
	}
	return b, nil
}

func (c *Client) skillFail(e *SkillError) error {
	return &Error{Class: ClassProtocol, Op: OpLoadSkill, Server: c.def.Name, Err: e}
}

// skillsParams and skillsResult are skills/list on the wire.
type skillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsResult struct {
	mcp.ResultBase
	mcp.Cacheable
	Skills     []json.RawMessage `json:"skills"`
	NextCursor string            `json:"nextCursor"`
}

// skillWire is one entry on the wire; resources is an array or "dynamic".
type skillWire struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

func registerSkillMethods(sdk *mcp.Client) error {
	return mcp.AddSendingCustomMethod[*skillsParams, *skillsResult](sdk, methodSkillsList)
}

// offersSkills reports whether the server declared the skills extension.
func offersSkills(caps *mcp.ServerCapabilities) bool {
	_, ok := caps.Extensions[SkillsExtension]
	return ok
}

// listSkills pages through skills/list, bounded by b. Entries that break
// the extension's rules are left out and named in cat.RefusedSkills.
func listSkills(ctx context.Context, cs *mcp.ClientSession, b *budget, cat *Catalog) error {
	raw, err := listAll(ctx, b, "skills", func(ctx context.Context, cursor string) ([]*json.RawMessage, string, error) {
		r, err := mcp.CallCustomMethod[*skillsParams, *skillsResult](ctx, cs, methodSkillsList, &skillsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		cat.noteCache("skills", r.Cacheable)
		page := make([]*json.RawMessage, len(r.Skills))
		for i := range r.Skills {
			page[i] = &r.Skills[i]
		}
		return page, r.NextCursor, nil
	})
	if err != nil {
		return err
	}
	for _, r := range raw {
		sk, why := decodeSkill(*r)
		if why != "" {
			if cat.RefusedSkills == nil {
				cat.RefusedSkills = map[string]string{}
			}
			cat.RefusedSkills[sk.URI] = why
			continue
		}
		cat.Skills = append(cat.Skills, sk)
	}
	return nil
}

// decodeSkill reads one entry and checks it, or says why it is refused.
func decodeSkill(raw json.RawMessage) (*Skill, string) {
	var w skillWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return &Skill{}, fmt.Sprintf("not a skill entry: %q", err.Error())
	}
	sk := &Skill{URI: w.URI, Frontmatter: w.Frontmatter}
	name, ok := skillmd.Name(w.URI)
	switch {
	case !ok:
		return sk, "uri does not end in /SKILL.md"
	case !skillmd.ValidName(name) || sk.Name() != name:
		return sk, fmt.Sprintf("name %q breaks the naming rules or differs from the frontmatter's", name)
	}
	if desc, _ := w.Frontmatter["description"].(string); desc == "" {
		return sk, "no frontmatter description"
	}
	if string(w.Resources) == `"dynamic"` {
		return sk, ""
	}
	if err := json.Unmarshal(w.Resources, &sk.Files); err != nil || sk.Files == nil {
		return sk, "resources is neither a list nor \"dynamic\""
	}
	return sk, checkFiles(sk)
}

// checkFiles checks a skill's file list: SKILL.md among them, each once,
// within the skill's directory, with a valid digest and size, and within
// the extension's limits.
func checkFiles(sk *Skill) string {
	dir, _ := skillmd.Dir(sk.URI)
	seen := map[string]bool{}
	total := 0
	for _, f := range sk.Files {
		switch {
		case seen[f.URI]:
			return fmt.Sprintf("file %q listed twice", f.URI)
		case f.URI != sk.URI && !strings.HasPrefix(f.URI, dir+"/"):
			return fmt.Sprintf("file %q is outside the skill", f.URI)
		case !validDigest(f.Digest):
			return fmt.Sprintf("file %q: digest %q", f.URI, f.Digest)
		case f.Size < 0:
			return fmt.Sprintf("file %q: size %d", f.URI, f.Size)
		}
		seen[f.URI] = true
		total += f.Size
	}
	switch {
	case !seen[sk.URI]:
		return "resources lack the SKILL.md"
	case len(sk.Files) > skillmd.MaxFiles || total > skillmd.MaxBytes:
		return fmt.Sprintf("%d files of %d bytes, over %d files or %d bytes", len(sk.Files), total, skillmd.MaxFiles, skillmd.MaxBytes)
	}
	slices.SortFunc(sk.Files, func(a, b SkillFile) int { return strings.Compare(a.URI, b.URI) })
	return ""
}

func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}

// sealSkills sorts the skills, refuses a URI listed twice and computes
// each skill's fingerprint.
func (c *Catalog) sealSkills() ([]json.RawMessage, error) {
	slices.SortFunc(c.Skills, func(a, b *Skill) int { return strings.Compare(a.URI, b.URI) })
	c.SkillFingerprints = make(map[string]string, len(c.Skills))
	out := make([]json.RawMessage, len(c.Skills))
	for i, sk := range c.Skills {
		if i > 0 && sk.URI == c.Skills[i-1].URI {
			return nil, fmt.Errorf("server listed skill %q twice", sk.URI)
		}
		b, err := canonical(map[string]any{"uri": sk.URI, "frontmatter": sk.Frontmatter, "files": sk.Files})
		if err != nil {
			return nil, fmt.Errorf("skill %q: %w", sk.URI, err)
		}
		out[i] = b
		c.SkillFingerprints[sk.URI] = hash(b)
	}
	return out, nil
}

// skillDrift lists the skills whose fingerprints differ from accepted:
// changed, new or gone, sorted.
func skillDrift(cat *Catalog, accepted map[string]string) []string {
	var out []string
	for uri, fp := range cat.SkillFingerprints {
		if accepted[uri] != fp {
			out = append(out, uri)
		}
	}
	for uri := range accepted {
		if _, ok := cat.SkillFingerprints[uri]; !ok {
			out = append(out, uri)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
