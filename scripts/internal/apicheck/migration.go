package main

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// migrationText returns the "### Migration" subsection of v's section in a
// changelog: the lines after its heading, up to the next heading.
func migrationText(changelog string, v semver) (string, bool) {
	num := regexp.QuoteMeta(strings.TrimPrefix(v.String(), "v"))
	section := regexp.MustCompile(`(?m)^## \[?v?` + num + `\]?(?:\s+-\s+.*?)?\s*$`)
	loc := section.FindStringIndex(changelog)
	if loc == nil {
		return "", false
	}
	rest := changelog[loc[1]:]
	if next := regexp.MustCompile(`(?m)^## `).FindStringIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	head := regexp.MustCompile(`(?m)^### Migration\s*$`).FindStringIndex(rest)
	if head == nil {
		return "", false
	}
	rest = rest[head[1]:]
	if next := regexp.MustCompile(`(?m)^#{1,3} `).FindStringIndex(rest); next != nil {
		rest = rest[:next[0]]
	}
	return rest, true
}

var (
	wordRE     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	typeArgsRE = regexp.MustCompile(`\[[^\]]*\]`)
)

// words returns what a line must name for it to mention c: the name of
// c's package, and each identifier of c's name ("(*Server).HTTPHandler"
// is Server and HTTPHandler). A removed or added package is its name.
func words(c Change) []string {
	pkg := path.Base(c.Package)
	name, _, _ := strings.Cut(c.What, ": ")
	if strings.HasPrefix(c.What, "package ") {
		return []string{pkg}
	}
	return append([]string{pkg}, wordRE.FindAllString(typeArgsRE.ReplaceAllString(name, ""), -1)...)
}

// unmentioned returns, as PKG.NAME, each change that no line of the
// migration text mentions: no one line names its package and every
// identifier of its name, as whole words.
func unmentioned(migration string, changes []Change) []string {
	var lines []map[string]bool
	for _, line := range strings.Split(migration, "\n") {
		set := map[string]bool{}
		for _, w := range wordRE.FindAllString(line, -1) {
			set[w] = true
		}
		lines = append(lines, set)
	}
	var missing []string
	for _, c := range changes {
		if !mentioned(lines, words(c)) {
			name, _, _ := strings.Cut(c.What, ": ")
			if strings.HasPrefix(c.What, "package ") {
				name = "(package)"
			}
			missing = append(missing, c.Package+"."+name)
		}
	}
	return missing
}

func mentioned(lines []map[string]bool, words []string) bool {
	for _, set := range lines {
		all := true
		for _, w := range words {
			all = all && set[w]
		}
		if all {
			return true
		}
	}
	return false
}

// checkMigration requires v's section to have a Migration subsection that
// mentions each incompatible change of the report.
func checkMigration(changelog string, v semver, r Report) error {
	if len(r.Incompatible) == 0 {
		return nil
	}
	text, ok := migrationText(changelog, v)
	if !ok {
		return fmt.Errorf("CHANGELOG.md's section for %s has no \"### Migration\" subsection for its %d incompatible changes", v, len(r.Incompatible))
	}
	if missing := unmentioned(text, r.Incompatible); len(missing) > 0 {
		return fmt.Errorf("CHANGELOG.md's Migration table for %s does not mention %d incompatible changes (a line naming the package and the name): %s",
			v, len(missing), strings.Join(missing, ", "))
	}
	return nil
}
