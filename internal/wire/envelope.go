package wire

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/looprig/mcp/internal/jsonscan"
)

// ErrAmbiguousKey is wrapped by the error Envelopes returns for a message
// that JSON readers can read differently.
var ErrAmbiguousKey = errors.New("ambiguous key")

// An Envelope is what Envelopes reads of one message beyond what
// DecodeMessage gives: its id exactly as sent.
type Envelope struct {
	// ID is the bytes of the message's "id" value (the last one, as the
	// go-sdk reads it), or nil when it has none.
	ID []byte
}

// The keys each level of a message is read by: a key that equals one of
// them ignoring case, but is not it, is read as it by a reader that
// matches keys as encoding/json does and ignored by the go-sdk.
var (
	envelopeKeys = foldSet("jsonrpc", "id", "method", "params", "result", "error")
	paramsKeys   = foldSet("_meta", "name", "uri", "arguments", "requestState", "inputResponses", "cursor")
)

func foldSet(keys ...string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[fold(k)] = k
	}
	return m
}

// fold maps s so that fold(a) == fold(b) exactly when encoding/json would
// match a and b as keys: ASCII and Unicode case, with the special folds
// (the long s, the Kelvin sign) that unicode.SimpleFold knows.
func fold(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		b = utf8.AppendRune(b, unicode.ToUpper(unicode.ToLower(r)))
	}
	return string(b)
}

// Envelopes reads the keys of data, one message or a batch of them, and
// returns each message's Envelope in order. data must be what ReadBatch
// reads without error.
//
// It returns an error wrapping ErrAmbiguousKey when a message, its params
// or its params' _meta holds a key that one JSON reader could read and
// another not, or read as another key: a key given twice (the go-sdk reads
// the last, other readers the first), two keys of a message or of its
// params that are equal ignoring case, and a key of a message or of its
// params that equals one the protocol defines ignoring case without being
// it ("Method", "PARAMS", "_META"): the go-sdk matches keys exactly, and a
// reader that matches them as encoding/json does reads those as the
// protocol's own. Keys of _meta are compared exactly (they are a map's).
func Envelopes(data []byte) ([]Envelope, error) {
	s := &jsonscan.Scanner{Data: data}
	s.Space()
	if s.Peek() != '[' {
		env, err := envelope(s)
		return []Envelope{env}, err
	}
	if err := s.Open(); err != nil {
		return nil, err
	}
	var envs []Envelope
	for first := true; ; first = false {
		more, err := s.More(']', first)
		if err != nil || !more {
			return envs, err
		}
		env, err := envelope(s)
		if err != nil {
			return nil, fmt.Errorf("message %d of the batch: %w", len(envs)+1, err)
		}
		envs = append(envs, env)
	}
}

// envelope reads one message's object.
func envelope(s *jsonscan.Scanner) (Envelope, error) {
	var env Envelope
	err := object(s, "message", envelopeKeys, true, func(key string) error {
		s.Space()
		start := s.Pos
		switch {
		case key == "id":
			err := s.Skip()
			env.ID = s.Data[start:s.Pos]
			return err
		case key == "params" && s.Peek() == '{':
			return object(s, "params", paramsKeys, true, func(key string) error {
				s.Space()
				if key == "_meta" && s.Peek() == '{' {
					return object(s, "params._meta", nil, false, func(string) error { return s.Skip() })
				}
				return s.Skip()
			})
		}
		return s.Skip()
	})
	return env, err
}

// object reads an object at s, calling value for each key with s before
// the key's value, which value must move past. Keys given twice are
// refused; with folded, so are keys equal ignoring case, and keys that
// fold to one of known without being it. A value that is not an object is
// skipped.
func object(s *jsonscan.Scanner, where string, known map[string]string, folded bool, value func(key string) error) error {
	s.Space()
	if s.Peek() != '{' {
		return s.Skip()
	}
	seen := make(map[string]string)
	return s.Object(func(raw []byte) error {
		key := keyText(raw)
		id := key
		if folded {
			id = fold(key)
			if k, ok := known[id]; ok && k != key {
				return fmt.Errorf("%w: %s key %q would be read as %q by a reader that ignores case, and is not %q to the go-sdk", ErrAmbiguousKey, where, key, k, k)
			}
		}
		if other, dup := seen[id]; dup {
			if other == key {
				return fmt.Errorf("%w: %s key %q is given twice", ErrAmbiguousKey, where, key)
			}
			return fmt.Errorf("%w: %s keys %q and %q are equal ignoring case", ErrAmbiguousKey, where, other, key)
		}
		seen[id] = key
		return value(key)
	})
}

// keyText returns the value of the key raw as the go-sdk's decoder reads
// it.
func keyText(raw []byte) string {
	if k, ok := plainString(raw); ok {
		return k
	}
	var k string
	if err := Unmarshal(raw, &k); err != nil {
		return string(raw)
	}
	return k
}
