// Command prose measures the sentences of this module's doc comments, so
// that "short plain sentences" can be checked rather than argued.
//
// Run it from the module root:
//
//	go run ./scripts/prose                   every package of the module
//	go run ./scripts/prose ./client/... auth one tree and one package
//	go run ./scripts/prose -tests ./client   _test.go files too, on rows of their own
//	go run ./scripts/prose -max-avg 20 -max-long 8 ./client/...
//
// It reads doc comments only: the package doc, and the comment directly
// above each declaration (exported or not), each spec in a group, and each
// struct field and interface method. Comments inside function bodies are
// not read. Directories named testdata, hidden ones and nested modules are
// skipped. Files ending in _test.go are left out unless -tests is given;
// then they are counted on a row of their own, "pkg (tests)".
//
// The comment is parsed as go doc parses it (go/doc/comment). Code blocks
// (indented lines) and headings are ignored. Paragraphs and list items are
// split into sentences at ".", "?" or "!" followed by a space, and at the
// end of a paragraph or item. Common abbreviations ("e.g.", "i.e.",
// "etc.") do not end a sentence. A word is a run of non-space characters
// holding a letter or a digit. A URL, a [link] or an identifier such as
// transport.Class counts as one word.
//
// It prints a table per package and a total: sentences, words, average
// words a sentence, and the share of sentences over 40 words. With
// -max-avg or -max-long it exits 1 when the total goes over either bound.
// With -long N it also lists each sentence over N words, by file and line.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode"
)

// longWords is the length past which a sentence counts as long.
const longWords = 40

// stats holds the counts for one row of the table.
type stats struct {
	sentences int
	words     int
	long      int // sentences over longWords words
}

func (s *stats) add(o stats) {
	s.sentences += o.sentences
	s.words += o.words
	s.long += o.long
}

func (s stats) avg() float64 {
	if s.sentences == 0 {
		return 0
	}
	return float64(s.words) / float64(s.sentences)
}

func (s stats) longShare() float64 {
	if s.sentences == 0 {
		return 0
	}
	return 100 * float64(s.long) / float64(s.sentences)
}

// sentence is one sentence found in a doc comment.
type sentence struct {
	pos   token.Position
	words int
	text  string
}

func main() {
	tests := flag.Bool("tests", false, "count _test.go files too, on rows of their own")
	maxAvg := flag.Float64("max-avg", 0, "exit 1 when the total average words a sentence is over this (0: no bound)")
	maxLong := flag.Float64("max-long", 0, "exit 1 when the total percentage of sentences over 40 words is over this (0: no bound)")
	long := flag.Int("long", 0, "list each sentence over this many words (0: none)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/prose [-tests] [-max-avg N] [-max-long PCT] [-long N] [dir | dir/...]...")
		flag.PrintDefaults()
	}
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		args = []string{"./..."}
	}
	dirs, err := expand(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "prose:", err)
		os.Exit(2)
	}
	rows := map[string]stats{}
	var longOnes []sentence
	for _, dir := range dirs {
		if err := measureDir(dir, *tests, rows, func(s sentence) {
			if *long > 0 && s.words > *long {
				longOnes = append(longOnes, s)
			}
		}); err != nil {
			fmt.Fprintln(os.Stderr, "prose:", err)
			os.Exit(2)
		}
	}
	total := printTable(rows)
	for _, s := range longOnes {
		fmt.Printf("%s:%d: %d words: %s\n", s.pos.Filename, s.pos.Line, s.words, s.text)
	}
	if (*maxAvg > 0 && total.avg() > *maxAvg) || (*maxLong > 0 && total.longShare() > *maxLong) {
		fmt.Fprintf(os.Stderr, "prose: %.1f words a sentence, %.1f%% over %d words: over the bound\n", total.avg(), total.longShare(), longWords)
		os.Exit(1)
	}
}

// expand turns the arguments into a sorted list of directories. An
// argument ending in "/..." names its directory and every directory below
// it, except testdata, hidden directories and nested modules.
func expand(args []string) ([]string, error) {
	seen := map[string]bool{}
	for _, arg := range args {
		root, recursive := strings.CutSuffix(arg, "/...")
		if root == "." || root == "" {
			root = "."
			recursive = recursive || arg == "..."
		}
		root = filepath.Clean(root)
		if !recursive {
			seen[root] = true
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			name := d.Name()
			if path != root {
				if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			seen[path] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, nil
}

// measureDir adds the doc comments of the Go files in dir to rows, keyed
// by the directory, and calls each for every sentence found.
func measureDir(dir string, tests bool, rows map[string]stats, each func(sentence)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		key := filepath.ToSlash(dir)
		if strings.HasSuffix(name, "_test.go") {
			if !tests {
				continue
			}
			key += " (tests)"
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		var s stats
		for _, g := range docComments(f) {
			for _, sn := range sentences(fset.Position(g.Pos()), g.Text()) {
				s.sentences++
				s.words += sn.words
				if sn.words > longWords {
					s.long++
				}
				each(sn)
			}
		}
		row := rows[key]
		row.add(s)
		rows[key] = row
	}
	return nil
}

// docComments returns the doc comments of f: the package doc, and those of
// its declarations, specs, struct fields and interface methods.
func docComments(f *ast.File) []*ast.CommentGroup {
	var groups []*ast.CommentGroup
	keep := func(g *ast.CommentGroup) {
		if g != nil {
			groups = append(groups, g)
		}
	}
	keep(f.Doc)
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			keep(d.Doc)
		case *ast.GenDecl:
			keep(d.Doc)
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					keep(sp.Doc)
					ast.Inspect(sp.Type, func(n ast.Node) bool {
						if field, ok := n.(*ast.Field); ok {
							keep(field.Doc)
						}
						return true
					})
				case *ast.ValueSpec:
					keep(sp.Doc)
				}
			}
		}
	}
	return groups
}

// sentences splits the text of one doc comment into sentences, leaving
// out code blocks and headings.
func sentences(pos token.Position, text string) []sentence {
	var p comment.Parser
	doc := p.Parse(text)
	var out []sentence
	for _, block := range doc.Content {
		switch b := block.(type) {
		case *comment.Paragraph:
			out = append(out, split(pos, plain(b.Text))...)
		case *comment.List:
			for _, item := range b.Items {
				for _, c := range item.Content {
					if para, ok := c.(*comment.Paragraph); ok {
						out = append(out, split(pos, plain(para.Text))...)
					}
				}
			}
		}
	}
	return out
}

// plain returns the words of a run of inline text, a link by its text.
func plain(texts []comment.Text) string {
	var b strings.Builder
	for _, t := range texts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plain(t.Text))
		case *comment.DocLink:
			b.WriteString(plain(t.Text))
		}
	}
	return b.String()
}

// abbreviations end in a period that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g.": true, "i.e.": true, "etc.": true, "vs.": true, "cf.": true,
	"no.": true, "approx.": true, "(e.g.": true, "(i.e.": true,
}

// split cuts a paragraph into sentences and counts their words.
func split(pos token.Position, text string) []sentence {
	var out []sentence
	var cur []string
	flush := func() {
		n := 0
		for _, w := range cur {
			if isWord(w) {
				n++
			}
		}
		if n > 0 {
			out = append(out, sentence{pos: pos, words: n, text: strings.Join(cur, " ")})
		}
		cur = cur[:0]
	}
	for _, w := range strings.Fields(text) {
		cur = append(cur, w)
		if ends(w) {
			flush()
		}
	}
	flush()
	return out
}

// ends reports whether a word ends its sentence.
func ends(w string) bool {
	if abbreviations[strings.ToLower(w)] {
		return false
	}
	w = strings.TrimRight(w, `)"'’”`)
	return strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!")
}

// isWord reports whether w holds a letter or a digit.
func isWord(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// printTable prints a row per package, sorted by name, then the total,
// which it returns. Rows without sentences are left out.
func printTable(rows map[string]stats) stats {
	keys := make([]string, 0, len(rows))
	for k, s := range rows {
		if s.sentences > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "package\tsentences\twords\twords/sentence\t>%d words\t\n", longWords)
	var total stats
	for _, k := range keys {
		s := rows[k]
		total.add(s)
		fmt.Fprintf(w, "%s\t%d\t%d\t%.1f\t%.1f%%\t\n", k, s.sentences, s.words, s.avg(), s.longShare())
	}
	fmt.Fprintf(w, "total\t%d\t%d\t%.1f\t%.1f%%\t\n", total.sentences, total.words, total.avg(), total.longShare())
	w.Flush()
	return total
}
