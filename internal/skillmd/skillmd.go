// Package skillmd holds the rules of the skills extension
// (io.modelcontextprotocol/skills, SEP-2640) that the client and the
// server share: the SKILL.md frontmatter, skill names, digests and the
// skill:// URIs.
package skillmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/looprig/mcp/internal/canonjson"
)

// File is the name of a skill's manifest, at the root of its directory.
const File = "SKILL.md"

// Scheme is the URI scheme a server publishes skills under.
const Scheme = "skill://"

// DirectoryMIME is the MIME type of a directory in resources/directory/read.
const DirectoryMIME = "inode/directory"

// The limits SEP-2640 asks servers to keep to.
const (
	MaxFiles = 512      // resource entries per skill, SKILL.md included
	MaxBytes = 16 << 20 // bytes per skill, summed over its files
)

// ErrFrontmatter reports a SKILL.md without valid frontmatter.
var ErrFrontmatter = errors.New("invalid SKILL.md frontmatter")

// frontmatterRE matches the leading "---" block of a SKILL.md, as the
// conformance suite does.
var frontmatterRE = regexp.MustCompile(`^---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|$)`)

// nameRE is the Agent Skills naming rule: 1 to 64 lowercase letters,
// digits and hyphens, no leading, trailing or doubled hyphen.
var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// ValidName reports whether name follows the Agent Skills naming rules.
func ValidName(name string) bool {
	return nameRE.MatchString(name) && !strings.Contains(name, "--")
}

// Frontmatter parses the YAML frontmatter of a SKILL.md into its JSON
// form. It requires non-empty string name and description fields.
func Frontmatter(content []byte) (map[string]any, error) {
	content = bytes.TrimPrefix(content, []byte("\uFEFF"))
	m := frontmatterRE.FindSubmatch(content)
	if m == nil {
		return nil, fmt.Errorf("%w: no leading --- block", ErrFrontmatter)
	}
	var raw any
	if err := yaml.Unmarshal(m[1], &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrontmatter, err)
	}
	// Through JSON, so that the result has JSON's types only.
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrontmatter, err)
	}
	var fm map[string]any
	if err := json.Unmarshal(b, &fm); err != nil || fm == nil {
		return nil, fmt.Errorf("%w: not a mapping", ErrFrontmatter)
	}
	for _, key := range []string{"name", "description"} {
		if s, _ := fm[key].(string); s == "" {
			return nil, fmt.Errorf("%w: no non-empty %s", ErrFrontmatter, key)
		}
	}
	return fm, nil
}

// Differences lists the fields in which two frontmatters differ, sorted,
// each as "field: file=<json> entry=<json>". Values are compared by their
// canonical JSON.
func Differences(file, entry map[string]any) []string {
	keys := map[string]bool{}
	for k := range file {
		keys[k] = true
	}
	for k := range entry {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		a, _ := canonjson.Marshal(file[k])
		b, _ := canonjson.Marshal(entry[k])
		if !bytes.Equal(a, b) {
			diffs = append(diffs, fmt.Sprintf("%q: file=%s entry=%s", k, a, b))
		}
	}
	slices.Sort(diffs)
	return diffs
}

// Digest is "sha256:" and the lowercase hex SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Name returns the skill name a SKILL.md URI names, its last directory
// segment, or false if uri does not end in /SKILL.md.
func Name(uri string) (string, bool) {
	dir, ok := Dir(uri)
	if !ok {
		return "", false
	}
	name := dir[strings.LastIndex(dir, "/")+1:]
	return name, name != ""
}

// Dir returns the directory URI of a skill's SKILL.md URI.
func Dir(uri string) (string, bool) {
	dir, ok := strings.CutSuffix(uri, "/"+File)
	if !ok || !strings.Contains(dir, "://") || strings.HasSuffix(dir, "://") {
		return "", false
	}
	return dir, true
}
