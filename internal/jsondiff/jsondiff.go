// Package jsondiff shows people how two JSON values differ: a unified line
// diff of their indented JSON (object keys sorted, two spaces, numbers as
// written), the same bytes for the same inputs every time. It is what
// mcprig diff, cassette mismatches and drifts print; tests compare with
// go-cmp, whose output varies on purpose and is not for users.
package jsondiff

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// Diff returns the unified diff (-oldName +newName) of the indented JSON of
// old and new, decoded trees (map[string]any, []any, string, json.Number,
// float64, bool, nil) or any value encoding/json encodes; "" when they
// encode alike. An absent side (Absent) shows as no lines.
func Diff(oldName string, old any, newName string, new any) string {
	return Text(oldName, Indent(old), newName, Indent(new))
}

// Absent stands for a value that is not there at all (a message the other
// side lacks): it indents as no lines, where nil indents as "null".
var Absent any = absent{}

type absent struct{}

// Bytes is Diff of two JSON texts; text that is not JSON is diffed as it is.
func Bytes(oldName string, old []byte, newName string, new []byte) string {
	return Text(oldName, IndentBytes(old), newName, IndentBytes(new))
}

// Text returns the unified diff (-oldName +newName) of two texts, with three
// lines of context; "" when they are equal.
func Text(oldName, old, newName, new string) string {
	if old == new {
		return ""
	}
	if old != "" && !strings.HasSuffix(old, "\n") {
		old += "\n"
	}
	if new != "" && !strings.HasSuffix(new, "\n") {
		new += "\n"
	}
	d := diff.Diff(oldName, []byte(old), newName, []byte(new))
	// The first line repeats the names ("diff OLD NEW"); the ---/+++ lines
	// that follow say them.
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return string(d)
}

// Indent returns v as indented JSON with a final newline; "" for Absent.
// JSON whose indentation would make it more than MaxGrowth times larger
// (plus 64 KiB) is returned compact: indenting a value nested n levels
// deep writes about n² spaces.
func Indent(v any) string {
	if _, ok := v.(absent); ok {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">\n"
	}
	compact := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if IndentedSize(compact) > MaxGrowth*len(compact)+64<<10 {
		return string(compact) + "\n"
	}
	var out bytes.Buffer
	out.Grow(IndentedSize(compact) + 1)
	json.Indent(&out, compact, "", "  ") // compact is valid: it was just encoded
	out.WriteByte('\n')
	return out.String()
}

// MaxGrowth bounds how many times larger than its compact form Indent
// makes a value.
const MaxGrowth = 4

// IndentedSize returns the size of json.Indent's output (no prefix, two
// spaces) of compact, valid JSON without white space.
func IndentedSize(compact []byte) int {
	n, depth := len(compact), 0
	inString := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if i+1 < len(compact) && compact[i+1] != '}' && compact[i+1] != ']' {
				n += 1 + 2*depth
			}
		case '}', ']':
			depth--
			if i > 0 && compact[i-1] != '{' && compact[i-1] != '[' {
				n += 1 + 2*depth
			}
		case ',':
			n += 1 + 2*depth
		case ':':
			n++
		}
	}
	return n
}

// IndentBytes returns the JSON text data indented (numbers as written), or
// data itself when it is not one JSON value; "" for nil.
func IndentBytes(data []byte) string {
	if data == nil {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return string(data)
	}
	return Indent(v)
}
