package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/looprig/mcp/internal/skillmd"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the server side of the skills extension
// (io.modelcontextprotocol/skills, SEP-2640): skills/list, skills/get and
// resources/directory/read. The go-sdk v1.8.0 has none of it: the methods
// are the go-sdk's custom methods (mcp.AddReceivingCustomMethod), and each
// skill file is an ordinary resource, read with resources/read.

// SkillsExtension is the name of the skills extension (SEP-2640).
const SkillsExtension = protocol.SkillsExtension

// DefaultSkillPageSize is the skills per skills/list page, and the entries
// per resources/directory/read page, when SkillOptions.PageSize is zero.
const DefaultSkillPageSize = 50

// SkillOptions publishes skills (Options.Skills). Each skill is a
// directory with a SKILL.md at its root whose YAML frontmatter has a name
// (the directory's own name) and a description. The server computes each
// file's digest and size.
type SkillOptions struct {
	// FS holds skill directories: every directory with a SKILL.md is a
	// skill, published at skill://<its path>/SKILL.md. A skill may not hold
	// another. Only regular files are published.
	FS fs.FS
	// Skills are skills given as definitions, beside those of FS.
	Skills []SkillDefinition
	// DirectoryRead offers resources/directory/read on each skill's
	// directories, and declares it (directoryRead: true).
	DirectoryRead bool
	// PageSize bounds the skills of one skills/list page and the entries of
	// one directory page. If zero, defaults to [DefaultSkillPageSize].
	PageSize int
	// TTL is the ttlMs of skills/list, skills/get and the skill files'
	// reads. Zero means stale at once.
	TTL time.Duration
	// CacheScope is the cacheScope of the same results: "public" (the
	// default when empty) or "private".
	CacheScope string
}

// A SkillDefinition is one skill given in code.
type SkillDefinition struct {
	// Path is the skill's path, such as "pdf-processing" or
	// "acme/pdf-processing"; its last segment is the skill's name.
	Path string
	// Files are the skill's files by slash-separated path within the
	// skill; SKILL.md must be among them.
	Files map[string][]byte
}

// skillFile is one published file of a skill.
type skillFile struct {
	rel, uri, digest, mime string
	data                   []byte
}

// skill is one published skill.
type skill struct {
	uri, dir    string // skill://<path>/SKILL.md and skill://<path>
	frontmatter map[string]any
	files       []skillFile // sorted by rel
}

// skills is what Options.Skills publishes.
type skills struct {
	list      []*skill // sorted by uri
	byURI     map[string]*skill
	dirs      map[string][]directoryEntry // children of each directory URI, sorted
	pageSize  int
	ttlMs     int
	scope     string
	directory bool
}

// skillEntry is a skill on the wire.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

type directoryEntry struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType,omitempty"`
	Size     *int   `json:"size,omitempty"`
}

// newSkills loads and checks o, or returns an *OptionsError of New.
func newSkills(o *SkillOptions) (*skills, error) {
	fail := func(option, value string, err error) (*skills, error) {
		return nil, &OptionsError{Func: "New", Option: "Skills." + option, Value: value, Err: err}
	}
	switch {
	case o.PageSize < 0:
		return fail("PageSize", strconv.Itoa(o.PageSize), errors.New("negative"))
	case o.TTL < 0:
		return fail("TTL", o.TTL.String(), errors.New("negative"))
	case o.CacheScope != "" && o.CacheScope != "public" && o.CacheScope != "private":
		return fail("CacheScope", o.CacheScope, errors.New(`neither "public" nor "private"`))
	}
	s := &skills{byURI: map[string]*skill{}, dirs: map[string][]directoryEntry{}, pageSize: o.PageSize,
		ttlMs: int(o.TTL.Milliseconds()), scope: o.CacheScope, directory: o.DirectoryRead}
	if s.pageSize == 0 {
		s.pageSize = DefaultSkillPageSize
	}
	if s.scope == "" {
		s.scope = "public"
	}
	defs := slices.Clone(o.Skills)
	if o.FS != nil {
		fromFS, err := skillsFromFS(o.FS)
		if err != nil {
			return fail("FS", "", err)
		}
		defs = append(defs, fromFS...)
	}
	for i, d := range defs {
		sk, err := newSkill(d)
		if err != nil {
			return fail(fmt.Sprintf("Skills[%d]", i), d.Path, err)
		}
		if s.byURI[sk.uri] != nil {
			return fail(fmt.Sprintf("Skills[%d]", i), d.Path, ErrDuplicate)
		}
		s.byURI[sk.uri] = sk
		s.list = append(s.list, sk)
		s.index(sk)
	}
	slices.SortFunc(s.list, func(a, b *skill) int { return strings.Compare(a.uri, b.uri) })
	return s, nil
}

// newSkill checks d and computes its files' digests.
func newSkill(d SkillDefinition) (*skill, error) {
	segs := strings.Split(d.Path, "/")
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, `\?#%:@ `) || strings.ContainsFunc(seg, isControl) {
			return nil, fmt.Errorf("%w: path segment %q", ErrInvalidDefinition, seg)
		}
	}
	name := segs[len(segs)-1]
	if !skillmd.ValidName(name) {
		return nil, fmt.Errorf("%w: skill name %q breaks the naming rules", ErrInvalidDefinition, name)
	}
	md, ok := d.Files[skillmd.File]
	if !ok {
		return nil, fmt.Errorf("%w: no %s", ErrInvalidDefinition, skillmd.File)
	}
	fm, err := skillmd.Frontmatter(md)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidDefinition, err)
	}
	if fm["name"] != name {
		return nil, fmt.Errorf("%w: frontmatter name %q is not the directory's, %q", ErrInvalidDefinition, fm["name"], name)
	}
	if len(d.Files) > skillmd.MaxFiles {
		return nil, fmt.Errorf("%w: %d files, more than %d", ErrInvalidDefinition, len(d.Files), skillmd.MaxFiles)
	}
	sk := &skill{dir: skillmd.Scheme + d.Path, frontmatter: fm}
	sk.uri = sk.dir + "/" + skillmd.File
	total := 0
	for rel, data := range d.Files {
		if !fs.ValidPath(rel) || rel == "." || strings.ContainsAny(rel, `\?#%`) || strings.ContainsFunc(rel, isControl) {
			return nil, fmt.Errorf("%w: file path %q", ErrInvalidDefinition, rel)
		}
		if total += len(data); total > skillmd.MaxBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrInvalidDefinition, skillmd.MaxBytes)
		}
		sk.files = append(sk.files, skillFile{rel: rel, uri: sk.dir + "/" + rel, digest: skillmd.Digest(data), mime: skillMIME(rel), data: data})
	}
	slices.SortFunc(sk.files, func(a, b skillFile) int { return strings.Compare(a.rel, b.rel) })
	return sk, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// index records sk's directories and their children.
func (s *skills) index(sk *skill) {
	seen := map[string]bool{}
	for _, f := range sk.files {
		size := len(f.data)
		parent := path.Dir(f.rel)
		s.dirs[skillJoin(sk.dir, parent)] = append(s.dirs[skillJoin(sk.dir, parent)], directoryEntry{URI: f.uri, Name: path.Base(f.rel), MIMEType: f.mime, Size: &size})
		for dir := parent; dir != "."; dir = path.Dir(dir) {
			uri := skillJoin(sk.dir, dir)
			if seen[uri] {
				break
			}
			seen[uri] = true
			up := skillJoin(sk.dir, path.Dir(dir))
			s.dirs[up] = append(s.dirs[up], directoryEntry{URI: uri, Name: path.Base(dir), MIMEType: skillmd.DirectoryMIME})
		}
	}
	if _, ok := s.dirs[sk.dir]; !ok {
		s.dirs[sk.dir] = nil
	}
	for uri, entries := range s.dirs {
		slices.SortFunc(entries, func(a, b directoryEntry) int { return strings.Compare(a.URI, b.URI) })
		s.dirs[uri] = entries
	}
}

func skillJoin(dir, rel string) string {
	if rel == "." {
		return dir
	}
	return dir + "/" + rel
}

// skillMIME is the MIME type of a skill file, by its extension.
func skillMIME(rel string) string {
	switch path.Ext(rel) {
	case ".md":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	}
	return "application/octet-stream"
}

// skillsFromFS reads every skill directory of fsys.
func skillsFromFS(fsys fs.FS) ([]SkillDefinition, error) {
	var defs []SkillDefinition
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := fs.Stat(fsys, path.Join(p, skillmd.File)); err != nil || p == "." {
			return nil
		}
		def, err := readSkillDir(fsys, p)
		if err != nil {
			return err
		}
		defs = append(defs, def)
		return fs.SkipDir
	})
	return defs, err
}

// readSkillDir reads the regular files of the skill at dir, within the
// limits of a skill.
func readSkillDir(fsys fs.FS, dir string) (SkillDefinition, error) {
	def := SkillDefinition{Path: dir, Files: map[string][]byte{}}
	total := 0
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != dir:
			if _, err := fs.Stat(fsys, path.Join(p, skillmd.File)); err == nil {
				return fmt.Errorf("%w: skill %q holds another skill, %q", ErrInvalidDefinition, dir, p)
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if total += int(info.Size()); total > skillmd.MaxBytes || len(def.Files) == skillmd.MaxFiles {
			return fmt.Errorf("%w: skill %q is over %d files or %d bytes", ErrInvalidDefinition, dir, skillmd.MaxFiles, skillmd.MaxBytes)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		def.Files[strings.TrimPrefix(p, dir+"/")] = data
		return nil
	})
	return def, err
}

// publish registers the skills' files as resources and the extension's
// methods on s.
func (k *skills) publish(s *Server) error {
	for _, sk := range k.list {
		for _, f := range sk.files {
			r := &mcp.Resource{URI: f.uri, Name: f.rel, MIMEType: f.mime, Size: int64(len(f.data))}
			if f.rel == skillmd.File {
				r.Name, _ = sk.frontmatter["name"].(string)
				r.Description, _ = sk.frontmatter["description"].(string)
			}
			if err := s.RegisterResource(r, k.read(f)); err != nil {
				return err
			}
		}
	}
	err := errors.Join(
		mcp.AddReceivingCustomMethod(s.mcp, "skills/list", func(_ context.Context, _ *mcp.ServerSession, p *skillsListParams) (*skillsListResult, error) {
			return k.listPage(s, p.Cursor)
		}),
		mcp.AddReceivingCustomMethod(s.mcp, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
			return k.get(s, p.URI)
		}),
	)
	if err == nil && k.directory {
		err = mcp.AddReceivingCustomMethod(s.mcp, "resources/directory/read", func(_ context.Context, _ *mcp.ServerSession, p *directoryReadParams) (*directoryReadResult, error) {
			return k.readDir(s, p.URI, p.Cursor)
		})
	}
	return err
}

// read returns the handler of one skill file: text when it is UTF-8, a
// blob otherwise, the same bytes either way.
func (k *skills) read(f skillFile) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		c := &mcp.ResourceContents{URI: f.uri, MIMEType: f.mime}
		if utf8.Valid(f.data) {
			c.Text = string(f.data)
		} else {
			c.Blob = f.data
		}
		return &mcp.ReadResourceResult{Cacheable: k.cacheable(), Contents: []*mcp.ResourceContents{c}}, nil
	}
}

func (k *skills) cacheable() mcp.Cacheable { return mcp.Cacheable{TTLMs: k.ttlMs, CacheScope: k.scope} }

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string       `json:"resultType"` // "complete", required on 2026-07-28
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string     `json:"resultType"` // "complete", required on 2026-07-28
	Skill      skillEntry `json:"skill"`
}

type directoryReadParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type directoryReadResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string           `json:"resultType"` // "complete", required on 2026-07-28
	Resources  []directoryEntry `json:"resources"`
	NextCursor string           `json:"nextCursor,omitempty"`
}

func (sk *skill) entry() skillEntry {
	e := skillEntry{URI: sk.uri, Frontmatter: sk.frontmatter, Resources: make([]skillResource, len(sk.files))}
	for i, f := range sk.files {
		e.Resources[i] = skillResource{URI: f.uri, Digest: f.digest, Size: len(f.data)}
	}
	return e
}

// skillPage returns the bounds of the page at cursor among n items, and the
// next cursor. A cursor is the base64 of the page's first index.
func skillPage(cursor string, n, size int) (lo, hi int, next string, err error) {
	if cursor != "" {
		b, derr := base64.RawURLEncoding.DecodeString(cursor)
		lo, err = strconv.Atoi(string(b))
		if derr != nil || err != nil || lo <= 0 || lo >= n {
			return 0, 0, "", invalidParams("invalid cursor %q", cursor)
		}
	}
	hi = min(lo+size, n)
	if hi < n {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(hi)))
	}
	return lo, hi, next, nil
}

func (k *skills) listPage(s *Server, cursor string) (*skillsListResult, error) {
	lo, hi, next, err := skillPage(cursor, len(k.list), k.pageSize)
	if err != nil {
		return nil, err
	}
	res := &skillsListResult{Cacheable: k.cacheable(), ResultType: "complete", Skills: []skillEntry{}, NextCursor: next}
	for _, sk := range k.list[lo:hi] {
		res.Skills = append(res.Skills, sk.entry())
	}
	return res, s.checkResult("skills/list", cursor, res)
}

func (k *skills) get(s *Server, uri string) (*skillsGetResult, error) {
	sk := k.byURI[uri]
	if sk == nil {
		return nil, invalidParams("no skill %q", uri)
	}
	res := &skillsGetResult{Cacheable: k.cacheable(), ResultType: "complete", Skill: sk.entry()}
	return res, s.checkResult("skills/get", uri, res)
}

func (k *skills) readDir(s *Server, uri, cursor string) (*directoryReadResult, error) {
	entries, ok := k.dirs[uri]
	if !ok {
		return nil, invalidParams("%q is not a skill directory", uri)
	}
	lo, hi, next, err := skillPage(cursor, len(entries), k.pageSize)
	if err != nil {
		return nil, err
	}
	res := &directoryReadResult{Cacheable: k.cacheable(), ResultType: "complete", Resources: append([]directoryEntry{}, entries[lo:hi]...), NextCursor: next}
	return res, s.checkResult("resources/directory/read", uri, res)
}

// skillsCapability is the extension's settings in server/discover.
func (k *skills) capability() map[string]any {
	if k.directory {
		return map[string]any{"directoryRead": true}
	}
	return map[string]any{}
}
