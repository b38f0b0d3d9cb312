package main

import (
	"strings"
	"testing"
)

const changelog = `# Changelog

## [Unreleased]

## [0.2.0] - Unreleased

### Migration

| v0.1.0 | v0.2.0 |
| ------ | ------ |
| ` + "`client.DefaultImplementation()`" + ` | ` + "`client.DefaultImplementation(n)`" + ` |
| ` + "`(*stdio.Transport).Close`" + ` | none |
| the package ` + "`transport/sse`" + ` | none |

### Changed

## [0.1.1] - 2026-11-30

## [1.1.0] - Unreleased

## [1.0.1] - Unreleased

## [2.0.0] - Unreleased

### Migration

| ` + "`client.DefaultImplementation()`" + ` | ` + "`client.DefaultImplementation(n)`" + ` |

## [0.1.0] - 2026-12-01
`

var (
	incompatible = Report{Incompatible: []Change{{"client", "DefaultImplementation: changed from func() to func(...int)"}}}
	compatible   = Report{Compatible: []Change{{"auth", "NewDPoPKey: added"}}}
	none         = Report{}
)

// TestCheck gives each rule of the tag policy its passing case and its
// failing ones, at the edges: the one version allowed, and the versions
// either side of it.
func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		in       Input
		wantFail string // a part of the error, or "" for no error
	}{
		{"incompatible on v0 needs the next minor", Input{Base: "v0.1.0", Version: "v0.2.0", Report: incompatible}, ""},
		{"incompatible on v0 with a patch", Input{Base: "v0.1.0", Version: "v0.1.1", Report: incompatible}, "must be v0.2.0"},
		{"incompatible on v0 unbumped", Input{Base: "v0.1.0", Version: "v0.1.0", Report: incompatible}, "must be v0.2.0"},
		{"incompatible on v0 skipping a minor", Input{Base: "v0.1.0", Version: "v0.3.0", Report: incompatible}, "must be v0.2.0"},
		{"incompatible on v0 with a new major", Input{Base: "v0.1.0", Version: "v1.0.0", Report: incompatible}, "must be v0.2.0"},
		{"incompatible from a patch release", Input{Base: "v0.1.1", Version: "v0.2.0", Report: incompatible}, ""},
		{"incompatible on v1 needs the next major", Input{Base: "v1.0.0", Version: "v2.0.0", Report: incompatible}, ""},
		{"incompatible on v1 with a minor", Input{Base: "v1.0.0", Version: "v1.1.0", Report: incompatible}, "must be v2.0.0"},
		{"compatible on v0 with a patch", Input{Base: "v0.1.0", Version: "v0.1.1", Report: compatible}, ""},
		{"compatible on v0 with a minor", Input{Base: "v0.1.0", Version: "v0.2.0", Report: compatible}, ""},
		{"compatible on v0 unbumped", Input{Base: "v0.1.0", Version: "v0.1.0", Report: compatible}, "must be v0.1.1 or v0.2.0"},
		{"compatible on v0 skipping a patch", Input{Base: "v0.1.0", Version: "v0.1.2", Report: compatible}, "must be"},
		{"compatible on v1 needs a minor", Input{Base: "v1.0.0", Version: "v1.1.0", Report: compatible}, ""},
		{"compatible on v1 with a patch", Input{Base: "v1.0.0", Version: "v1.0.1", Report: compatible}, "must be v1.1.0 or v2.0.0"},
		{"no change, no bump", Input{Base: "v0.1.0", Version: "v0.1.0", Report: none}, ""},
		{"no change, a patch for a fix", Input{Base: "v0.1.0", Version: "v0.1.1", Report: none}, ""},
		{"no change, older", Input{Base: "v0.2.0", Version: "v0.1.0", Report: none}, "must be v0.2.0, v0.2.1 or v0.3.0"},
		{"no change, skipping", Input{Base: "v0.1.0", Version: "v0.3.0", Report: none}, "must be"},
		{"a bump needs its changelog section", Input{Base: "v0.2.0", Version: "v0.3.0", Report: incompatible}, "no section for v0.3.0"},
		{"the same version needs none", Input{Base: "v0.3.0", Version: "v0.3.0", Report: none}, ""},
		{"a release is dated", Input{Base: "v0.1.0", Version: "v0.1.1", HeadTag: "v0.1.1", Report: compatible}, ""},
		{"a release not dated", Input{Base: "v0.1.0", Version: "v0.2.0", HeadTag: "v0.2.0", Report: incompatible}, "is not dated"},
		{"a release that is not the Version", Input{Base: "v0.1.0", Version: "v0.1.1", HeadTag: "v0.1.2", Report: compatible}, "tagged v0.1.2 but client.Version is v0.1.1"},
		{"a release without a section", Input{Base: "v0.3.0", Version: "v0.3.0", HeadTag: "v0.3.0", Report: none}, "no section for release v0.3.0"},
		{"a bad Version", Input{Base: "v0.1.0", Version: "0.2.0", Report: none}, "Version: version \"0.2.0\""},
		{"a pre-release Version", Input{Base: "v0.1.0", Version: "v0.2.0-dev", Report: none}, "not of the form"},
		{"a bad tag", Input{Base: "v0.1", Version: "v0.2.0", Report: none}, "release tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Changelog == "" {
				tt.in.Changelog = changelog
			}
			err := Check(tt.in)
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tt.wantFail != "" && err == nil:
				t.Errorf("Check: nil, want an error with %q", tt.wantFail)
			case tt.wantFail != "" && !strings.Contains(err.Error(), tt.wantFail):
				t.Errorf("Check: %v, want an error with %q", err, tt.wantFail)
			}
		})
	}
}

// TestChangelogSection reads the headings Keep a Changelog writes, and no
// heading of another version that shares a prefix.
func TestChangelogSection(t *testing.T) {
	v := semver{0, 2, 0}
	for _, tt := range []struct {
		text, date string
		ok         bool
	}{
		{"## [0.2.0] - 2026-12-01\n", "2026-12-01", true},
		{"## [v0.2.0] - Unreleased\n", "Unreleased", true},
		{"## 0.2.0\n", "", true},
		{"## [0.2.0]\n", "", true},
		{"## [0.2.01] - 2026-12-01\n", "", false},
		{"## [10.2.0] - 2026-12-01\n", "", false},
		{"## [0.2.0.1]\n", "", false},
		{"### [0.2.0]\n", "", false},
		{"text mentions 0.2.0\n", "", false},
		{"## [0.2x0]\n", "", false},
	} {
		date, ok := changelogSection(tt.text, v)
		if date != tt.date || ok != tt.ok {
			t.Errorf("changelogSection(%q) = %q, %v; want %q, %v", tt.text, date, ok, tt.date, tt.ok)
		}
	}
}
