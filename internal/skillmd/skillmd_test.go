package skillmd

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrontmatter(t *testing.T) {
	got, err := Frontmatter([]byte("\uFEFF---\r\nname: pdf\ndescription: Fill forms\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "pdf", "description": "Fill forms", "metadata": map[string]any{"version": float64(2), "tags": []any{"a", "b"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frontmatter (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"name: pdf\ndescription: d\n",                     // no block
		"---\nname: pdf\ndescription: d\n",                // unterminated
		"---\nname: pdf\n---\n",                           // no description
		"---\nname: \"\"\ndescription: d\n---\n",          // empty name
		"---\n- a\n- b\n---\n",                            // not a mapping
		"---\nname: [pdf\ndescription: d\n---\n",          // not YAML
		"---\nname: 3\ndescription: d\n---\n",             // name not a string
		"---\n? [a]\n: b\nname: p\ndescription: d\n---\n", // a key JSON cannot hold
		aliasBomb(), // a billion laughs: refused by the YAML decoder, not expanded
	} {
		if _, err := Frontmatter([]byte(bad)); !errors.Is(err, ErrFrontmatter) {
			t.Errorf("Frontmatter(%q) = %v; want ErrFrontmatter", bad, err)
		}
	}
}

func TestDifferences(t *testing.T) {
	a := map[string]any{"name": "pdf", "description": "Fill", "metadata": map[string]any{"v": 1.0}}
	if d := Differences(a, map[string]any{"metadata": map[string]any{"v": 1.0}, "description": "Fill", "name": "pdf"}); d != nil {
		t.Errorf("same frontmatter: %v", d)
	}
	d := Differences(a, map[string]any{"name": "pdf", "description": "Exfiltrate", "extra": true})
	if len(d) != 3 || !strings.HasPrefix(d[0], `"description"`) || !strings.HasPrefix(d[1], `"extra"`) || !strings.HasPrefix(d[2], `"metadata"`) {
		t.Errorf("Differences = %q", d)
	}
}

func TestNames(t *testing.T) {
	for name, ok := range map[string]bool{"a": true, "pdf-processing": true, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false} {
		if ValidName(name) != ok {
			t.Errorf("ValidName(%q) = %v", name, !ok)
		}
	}
	for uri, want := range map[string]string{"skill://pdf/SKILL.md": "pdf", "skill://acme/pdf/SKILL.md": "pdf", "skill:///SKILL.md": "", "skill://pdf/README.md": ""} {
		if got, _ := Name(uri); got != want {
			t.Errorf("Name(%q) = %q, want %q", uri, got, want)
		}
	}
}

// aliasBomb is frontmatter whose aliases expand to 9^9 strings.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i < 9; i++ {
		ref := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(ref+",", 9), ","))
	}
	b.WriteString("---\n")
	return b.String()
}
