package safetext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// hostile are strings a cassette, a peer or a child's stderr could carry
// to a terminal.
var hostile = map[string]struct{ in, line, text string }{
	"clear screen":     {"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
	"OSC 8 link":       {"\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`, `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`},
	"OSC 52 clipboard": {"\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07", `\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07`, `\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07`},
	"window title":     {"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
	"C1 CSI and OSC":   {"a\u009b2Jb\u009d0;t\u009c", `a\u009b2Jb\u009d0;t\u009c`, `a\u009b2Jb\u009d0;t\u009c`},
	"DEL and NUL":      {"a\x7fb\x00c", `a\x7fb\x00c`, `a\x7fb\x00c`},
	"bidi override":    {"txt.\u202eexe.sh", `txt.\u202eexe.sh`, `txt.\u202eexe.sh`},
	"bidi isolates":    {"\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, `\u2066a\u2067b\u2068c\u2069`},
	"zero width":       {"a\u200bb\u200cc\u200dd\u200ee\u200ff", `a\u200bb\u200cc\u200dd\u200ee\u200ff`, `a\u200bb\u200cc\u200dd\u200ee\u200ff`},
	"BOM and tags":     {"\ufeffa\U000E0041", `\ufeffa\U000e0041`, `\ufeffa\U000e0041`},
	"separators":       {"a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
	"invalid UTF-8":    {"a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	"lines and tabs":   {"a\tb\nc\r\n", `a\tb\nc\r\n`, "a\tb\nc\\r\n"},
	"plain":            {"héllo, 世界 😀 <&> \\x1b", `héllo, 世界 😀 <&> \x1b`, `héllo, 世界 😀 <&> \x1b`},
}

// TestHostileMadeVisible: every control, format and invalid character
// comes out as an escape naming it; printable text, a backslash included,
// is kept.
func TestHostileMadeVisible(t *testing.T) {
	for name, c := range hostile {
		if got := Line(c.in); got != c.line {
			t.Errorf("%s: Line mismatch (-want +got):\n%s", name, cmp.Diff(c.line, got))
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("%s: Text mismatch (-want +got):\n%s", name, cmp.Diff(c.text, got))
		}
	}
}

// TestWriterSplitAnywhere: a Writer gives what Text gives, wherever the
// writes cut the text, a character's bytes included.
func TestWriterSplitAnywhere(t *testing.T) {
	for name, c := range hostile {
		for i := 0; i <= len(c.in); i++ {
			for j := i; j <= len(c.in); j++ {
				var out bytes.Buffer
				w := NewWriter(&out)
				for _, p := range []string{c.in[:i], c.in[i:j], c.in[j:]} {
					if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
						t.Fatalf("%s: Write = %d, %v; want %d, nil", name, n, err, len(p))
					}
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if got := out.String(); got != c.text {
					t.Fatalf("%s cut at %d and %d: mismatch (-want +got):\n%s", name, i, j, cmp.Diff(c.text, got))
				}
			}
		}
	}
}

// shown checks that s has nothing hidden: valid UTF-8, no Hidden rune,
// newlines and tabs only when lines.
func shown(t *testing.T, what, s string, lines bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s: %q is not UTF-8", what, s)
	}
	for _, r := range s {
		if Hidden(r) && !(lines && (r == '\n' || r == '\t')) {
			t.Fatalf("%s: %q holds %U", what, s, r)
		}
	}
}

// FuzzVisible: for any input, Line and Text leave nothing hidden, apply
// twice as once, change nothing that needed no change, and a Writer cut
// in two gives Text.
func FuzzVisible(f *testing.F) {
	for _, c := range hostile {
		f.Add(c.in, uint(len(c.in)/2))
	}
	f.Fuzz(func(t *testing.T, s string, at uint) {
		line, text := Line(s), Text(s)
		shown(t, "Line", line, false)
		shown(t, "Text", text, true)
		if Line(line) != line || Text(text) != text {
			t.Fatalf("not idempotent on %q", s)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, Hidden) && text != s {
			t.Fatalf("Text changed %q, which hides nothing, to %q", s, text)
		}
		i := int(at % uint(len(s)+1))
		var out bytes.Buffer
		w := NewWriter(&out)
		w.Write([]byte(s[:i]))
		w.Write([]byte(s[i:]))
		w.Flush()
		if out.String() != text {
			t.Fatalf("Writer cut at %d mismatch (-want +got):\n%s", i, cmp.Diff(text, out.String()))
		}
	})
}
