package main

import (
	"testing/fstest"

	"github.com/looprig/mcp/server"
)

// skillsFS is the skill directory the suite's sep-2640-skills-* scenarios
// read: one skill with a subdirectory, so that resources/directory/read has
// a directory child to show.
var skillsFS = fstest.MapFS{
	"pdf-processing/SKILL.md": {Data: []byte(`---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
metadata:
  version: "1.0"
---

Read references/FORMS.md before filling a form.
`)},
	"pdf-processing/references/FORMS.md": {Data: []byte("How to fill PDF forms.\n")},
	"pdf-processing/scripts/fill.py":     {Data: []byte("print('fill')\n")},
	"acme/code-review/SKILL.md": {Data: []byte(`---
name: code-review
description: Review a change for correctness and style
---

Look at the diff first.
`)},
	"acme/code-review/references/STYLE.md": {Data: []byte("Prefer short functions.\n")},
}

// skillOptions publishes skillsFS with directory reads.
func skillOptions() *server.SkillOptions {
	return &server.SkillOptions{FS: skillsFS, DirectoryRead: true, PageSize: 1}
}
