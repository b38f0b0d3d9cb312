package client

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// A Binding is one tool as a model sees it: a model name that is safe to
// hand to any LLM API, and whether the harness lets the model call it.
type Binding struct {
	Server    string // Definition.Name
	Tool      string // the tool's name on the server
	ModelName string // mcp__<server>__<tool>, see ModelName
	Enabled   bool
	// Held reports that the tool changed against the pinned fingerprint and
	// refuses calls until Client.AcceptCatalog.
	Held bool
}

// MaxModelNameLen is the longest model name ModelNames produces; it is the
// limit of the common LLM tool-calling APIs.
const MaxModelNameLen = 64

// ModelNames returns the model name of each tool of server, by tool name.
//
// A model name is "mcp__" + server + "__" + tool with every character outside
// [A-Za-z0-9_-] replaced by '_'. A name is left readable when it is unique
// and at most MaxModelNameLen long. Otherwise a deterministic suffix makes
// it unique. When several tools map to the same name, one keeps it: the
// tool whose name needed no replacement, else the smallest tool name in
// byte order. Every other one becomes its first 55 characters, '_', and
// the first 8 hex digits of the SHA-256 of the tool's name. So does every
// name that had to be shortened. The result depends only on the set of names,
// not on the order they are listed in.
func ModelNames(server string, tools []string) map[string]string {
	prefix := "mcp__" + sanitize(server) + "__"
	byCandidate := map[string][]string{}
	for _, t := range tools {
		c := prefix + sanitize(t)
		byCandidate[c] = append(byCandidate[c], t)
	}
	out := make(map[string]string, len(tools))
	for cand, group := range byCandidate {
		slices.Sort(group)
		keeper := group[0]
		for _, t := range group {
			if sanitize(t) == t {
				keeper = t
				break
			}
		}
		for _, t := range group {
			if t == keeper && len(cand) <= MaxModelNameLen {
				out[t] = cand
				continue
			}
			sum := sha256.Sum256([]byte(t))
			out[t] = cand[:min(len(cand), MaxModelNameLen-9)] + "_" + hex.EncodeToString(sum[:4])
		}
	}
	return out
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
