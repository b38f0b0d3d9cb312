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
func Indent(v any) string {
	if _, ok := v.(absent); ok {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">\n"
	}
	return buf.String()
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
