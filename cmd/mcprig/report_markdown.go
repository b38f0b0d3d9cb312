package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/cassette"
)

// markdown renders r as a summary a CI job posts on a pull request: a
// verdict, a table of cases, then each case's items, worst first, and
// their diffs. Untrusted
// strings are made visible and escaped; diffs are fenced.
func markdown(r *report) string {
	var b strings.Builder
	verdict := "✅ pass"
	switch r.Exit {
	case exitFail:
		verdict = "❌ fail"
	case exitNotRun:
		verdict = "⚠️ could not run"
	}
	fmt.Fprintf(&b, "### mcprig %s: %s\n\n", r.Command, verdict)
	fmt.Fprintf(&b, "%s found; `--fail-on %s`.\n\n", r.summary(), r.FailOn)
	b.WriteString("| Case | Result | Breaking | Dangerous | Minor | Info |\n|---|---|--:|--:|--:|--:|\n")
	for _, c := range r.Cases {
		n := map[cassette.Severity]int{}
		for _, it := range c.Items {
			n[it.Severity]++
		}
		res := "✅ pass"
		switch {
		case c.Error != "":
			res = "⚠️ error"
		case c.Failed:
			res = "❌ fail"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d |\n", mdText(c.Name), res,
			n[cassette.SeverityBreaking], n[cassette.SeverityDangerous], n[cassette.SeverityMinor], n[cassette.SeverityInfo])
	}
	for _, c := range r.Cases {
		if c.Error == "" && len(c.Items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s\n\n", mdText(c.Name))
		if c.Error != "" {
			fmt.Fprintf(&b, "Could not run: %s\n", mdText(c.Error))
			continue
		}
		b.WriteString("| Severity | Kind | Subject | Change |\n|---|---|---|---|\n")
		items := slices.Clone(c.Items) // worst first
		slices.SortStableFunc(items, func(a, b reportItem) int { return int(b.Severity - a.Severity) })
		for _, it := range items {
			sev := it.Severity.String()
			if it.Severity >= r.FailOn {
				sev = "**" + sev + "**"
			}
			change := it.Reason
			if it.Detail != "" {
				change += ": " + it.Detail
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", sev, mdText(it.Kind), mdText(it.Subject), mdText(change))
		}
		for _, it := range items {
			if it.Diff == "" {
				continue
			}
			fence := strings.Repeat("`", max(3, longestRun(it.Diff, '`')+1))
			fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n%sdiff\n%s%s\n</details>\n", mdText(it.Subject), fence, visible(it.Diff), fence)
		}
	}
	return b.String()
}

// mdReplacer escapes what Markdown or the HTML it allows would read.
var mdReplacer = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "#", `\#`, "~", `\~`, "\n", " ", "\r", " ")

// mdText makes s visible and safe in a Markdown table cell or heading.
func mdText(s string) string { return mdReplacer.Replace(visible(s)) }

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// worst returns the worst severity among items; 0 when there are none.
func worst(items []reportItem) cassette.Severity {
	w := cassette.Severity(0)
	for _, it := range items {
		w = max(w, it.Severity)
	}
	return w
}
