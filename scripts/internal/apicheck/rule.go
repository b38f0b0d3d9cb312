package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A semver is a release version vMAJOR.MINOR.PATCH. Pre-releases and build
// metadata are not versions this module tags.
type semver struct{ major, minor, patch int }

var semverRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

func parseSemver(s string) (semver, error) {
	m := semverRE.FindStringSubmatch(s)
	if m == nil {
		return semver{}, fmt.Errorf("version %q is not of the form vMAJOR.MINOR.PATCH", s)
	}
	var v [3]int
	for i := range v {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return semver{}, fmt.Errorf("version %q: %w", s, err)
		}
		v[i] = n
	}
	return semver{v[0], v[1], v[2]}, nil
}

func (v semver) String() string { return fmt.Sprintf("v%d.%d.%d", v.major, v.minor, v.patch) }

func (v semver) nextPatch() semver { return semver{v.major, v.minor, v.patch + 1} }
func (v semver) nextMinor() semver { return semver{v.major, v.minor + 1, 0} }
func (v semver) nextMajor() semver { return semver{v.major + 1, 0, 0} }

// breaking is the version an incompatible change needs after v: the next
// minor while the major is 0, the next major after.
func (v semver) breaking() semver {
	if v.major == 0 {
		return v.nextMinor()
	}
	return v.nextMajor()
}

// An Input is what the rule judges.
type Input struct {
	Base      string // the last release's tag, whose API the report compares against
	Version   string // the module's version now (client.Version)
	HeadTag   string // the release tag at HEAD, or "" when HEAD is not a release
	Changelog string // CHANGELOG.md's text
	Report    Report
}

// Check returns every way in violates the tag policy, joined, or nil.
func Check(in Input) error {
	base, err := parseSemver(in.Base)
	if err != nil {
		return fmt.Errorf("release tag: %w", err)
	}
	v, err := parseSemver(in.Version)
	if err != nil {
		return fmt.Errorf("client.Version: %w", err)
	}
	var errs []error
	if allowed := allowedVersions(base, in.Report); !contains(allowed, v) {
		errs = append(errs, fmt.Errorf("client.Version is %s; after %s with %s, it must be %s",
			v, base, describe(in.Report), orList(allowed)))
	}
	if v != base {
		if _, ok := changelogSection(in.Changelog, v); !ok {
			errs = append(errs, fmt.Errorf("CHANGELOG.md has no section for %s (a heading \"## [%s] - Unreleased\")",
				v, strings.TrimPrefix(v.String(), "v")))
		} else if err := checkMigration(in.Changelog, v, in.Report); err != nil {
			errs = append(errs, err)
		}
	}
	if in.HeadTag != "" {
		errs = append(errs, checkRelease(in.HeadTag, v, in.Changelog)...)
	}
	return errors.Join(errs...)
}

// allowedVersions are the versions that may follow base given the report:
// the first is the one an incompatible change needs, when there is one.
func allowedVersions(base semver, r Report) []semver {
	switch {
	case len(r.Incompatible) > 0:
		return []semver{base.breaking()}
	case len(r.Compatible) > 0 && base.major == 0:
		return []semver{base.nextPatch(), base.nextMinor()}
	case len(r.Compatible) > 0:
		return []semver{base.nextMinor(), base.nextMajor()}
	case base.major == 0:
		// No API change: the same version, or a bump for what the API
		// does not show (a fix, a change of behaviour).
		return []semver{base, base.nextPatch(), base.nextMinor()}
	default:
		return []semver{base, base.nextPatch(), base.nextMinor(), base.nextMajor()}
	}
}

// checkRelease checks a release commit: the tag is the version, and its
// changelog section is dated.
func checkRelease(tag string, v semver, changelog string) []error {
	t, err := parseSemver(tag)
	if err != nil {
		return []error{fmt.Errorf("release tag at HEAD: %w", err)}
	}
	var errs []error
	if t != v {
		errs = append(errs, fmt.Errorf("HEAD is tagged %s but client.Version is %s", t, v))
	}
	if date, ok := changelogSection(changelog, t); ok && !dateRE.MatchString(date) {
		errs = append(errs, fmt.Errorf("CHANGELOG.md's section for release %s is not dated (%q, want YYYY-MM-DD)", t, date))
	} else if !ok {
		errs = append(errs, fmt.Errorf("CHANGELOG.md has no section for release %s", t))
	}
	return errs
}

var dateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// changelogSection finds v's heading in a Keep a Changelog file,
// "## [0.2.0] - 2026-12-01" (the v and the brackets optional), and returns
// what follows the dash.
func changelogSection(changelog string, v semver) (string, bool) {
	num := regexp.QuoteMeta(strings.TrimPrefix(v.String(), "v"))
	re := regexp.MustCompile(`(?m)^## \[?v?` + num + `\]?(?:\s+-\s+(.*?))?\s*$`)
	m := re.FindStringSubmatch(changelog)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func contains(vs []semver, v semver) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

func orList(vs []semver) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func describe(r Report) string {
	switch {
	case len(r.Incompatible) > 0:
		return fmt.Sprintf("%d incompatible API changes", len(r.Incompatible))
	case len(r.Compatible) > 0:
		return fmt.Sprintf("%d compatible API changes", len(r.Compatible))
	default:
		return "no API change"
	}
}
