package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/looprig/mcp/internal/canonjson"
)

// DecodeTree decodes JSON into a tree of map[string]any, []any, string,
// json.Number, bool and nil. Numbers keep their literal text.
func DecodeTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// EncodeTree encodes a decoded tree canonically.
func EncodeTree(v any) []byte {
	out, err := canonjson.Marshal(v)
	if err != nil {
		panic("cassette: encoding a decoded tree: " + err.Error()) // trees hold only JSON values
	}
	return out
}

// ErrEmptySegment is returned when a path has an empty segment.
var ErrEmptySegment = errors.New("path has an empty segment")

// A Path names values inside a JSON-RPC message, as dot-separated object
// keys from the message object down ("params.arguments.token"). A segment
// "*" matches every key of an object and every element of an array.
type Path []string

// ParsePaths parses paths that Options.validate has accepted.
func ParsePaths(ss []string) []Path {
	ps := make([]Path, 0, len(ss))
	for _, s := range ss {
		p, err := ParsePath(s)
		if err != nil {
			panic("cassette: unvalidated path: " + err.Error()) // constructors validate options first
		}
		ps = append(ps, p)
	}
	return ps
}

// ParsePath parses one dot-separated path.
func ParsePath(s string) (Path, error) {
	p := Path(strings.Split(s, "."))
	for _, seg := range p {
		if seg == "" {
			return nil, ErrEmptySegment
		}
	}
	return p, nil
}

// WalkPath calls f for every value at p under v; f returns the replacement
// and whether to delete the value (objects only).
func WalkPath(v any, p Path, f func(any) (any, bool)) {
	if len(p) == 0 {
		return
	}
	last := len(p) == 1
	switch v := v.(type) {
	case map[string]any:
		apply := func(k string) {
			child, ok := v[k]
			if !ok {
				return
			}
			if !last {
				WalkPath(child, p[1:], f)
				return
			}
			if nv, del := f(child); del {
				delete(v, k)
			} else {
				v[k] = nv
			}
		}
		if p[0] == "*" {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				apply(k)
			}
		} else {
			apply(p[0])
		}
	case []any:
		if p[0] != "*" {
			return
		}
		for i, child := range v {
			if !last {
				WalkPath(child, p[1:], f)
			} else if nv, del := f(child); del {
				v[i] = nil // arrays keep their length
			} else {
				v[i] = nv
			}
		}
	}
}

// MapStrings replaces every string in v (object keys included) by f of it,
// the keys of an object in sorted order, each before its value.
func MapStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			child := v[k]
			nk := f(k)
			if nk != k {
				delete(v, k)
			}
			v[nk] = MapStrings(child, f)
		}
		return v
	case []any:
		for i, child := range v {
			v[i] = MapStrings(child, f)
		}
		return v
	}
	return v
}

// SortedSet returns ss sorted, each value once.
func SortedSet(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
