package mcptest

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/protocol"
)

// checkSkills checks the skills of a server that offers the skills
// extension (SEP-2640) at 2026-07-28. It checks through a client.Client of
// its own with Definition.Skills. Every entry must keep the extension's
// rules. Every file of every skill must read back as its entry says: size,
// digest, and for a SKILL.md its frontmatter, field by field.
func checkSkills(ctx context.Context, s *checkSession) []error {
	caps := s.cs.InitializeResult().Capabilities
	if s.rev < protocol.Revision20260728 || caps == nil {
		return nil
	}
	if _, ok := caps.Extensions[client.SkillsExtension]; !ok {
		return nil
	}
	c, err := client.Connect(ctx, client.Definition{Name: "mcptest-check", Profile: client.Profile20260728, Skills: true, Transport: s.f}, nil)
	if err != nil {
		return []error{err}
	}
	defer c.Close()
	cat := c.Catalog()
	var errs []error
	for _, uri := range slices.Sorted(maps.Keys(cat.RefusedSkills)) {
		errs = append(errs, fmt.Errorf("skill %q: %s", uri, cat.RefusedSkills[uri]))
	}
	for _, sk := range cat.Skills {
		if sk.Files == nil {
			continue // "dynamic": nothing to verify
		}
		if _, err := c.LoadSkill(ctx, sk.URI); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range sk.Files {
			if f.URI == sk.URI {
				continue
			}
			if _, err := c.ReadSkillFile(ctx, sk.URI, f.URI); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
