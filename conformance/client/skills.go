package main

import (
	"context"
)

// The skills extension's scenarios (SEP-2640). The suite's server lists
// one skill; in the verify-* scenarios its SKILL.md differs from the entry
// (digest, size or frontmatter), and the suite checks that the client read
// no other file of it. In no-prefetch it checks that listing read none.
func init() {
	scenarios["sep-2640-client-no-prefetch"] = scenario{run: skillsListOnly}
	for _, name := range []string{"sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"} {
		scenarios[name] = scenario{run: skillsLoad}
	}
}

// skillsListOnly connects with skills listed, and loads none.
func skillsListOnly(ctx context.Context, r *runner) error {
	r.skills = true
	return connectOnly(ctx, r)
}

// skillsLoad loads every listed skill and, once a skill's SKILL.md is
// verified, reads its other files. A skill that fails verification is
// logged and left alone: nothing more of it is read.
func skillsLoad(ctx context.Context, r *runner) error {
	r.skills = true
	c, err := r.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, sk := range c.Catalog().Skills {
		if _, err := c.LoadSkill(ctx, sk.URI); err != nil {
			r.log.Printf("skill refused: %v", err)
			continue
		}
		for _, f := range sk.Files {
			if f.URI == sk.URI {
				continue
			}
			if _, err := c.ReadSkillFile(ctx, sk.URI, f.URI); err != nil {
				r.log.Printf("skill file refused: %v", err)
			}
		}
	}
	return c.Close()
}
