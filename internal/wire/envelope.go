package wire

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
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
	s := &scanner{data: data}
	s.space()
	if s.peek() != '[' {
		env, err := s.envelope()
		return []Envelope{env}, err
	}
	s.pos++
	var envs []Envelope
	for {
		s.space()
		switch s.peek() {
		case ']', 0:
			return envs, nil
		case ',':
			s.pos++
			continue
		}
		env, err := s.envelope()
		if err != nil {
			return nil, fmt.Errorf("message %d of the batch: %w", len(envs)+1, err)
		}
		envs = append(envs, env)
	}
}

// A scanner walks JSON that a decoder has accepted: it finds the bounds of
// values and the keys of objects, and checks nothing else.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// envelope reads one message's object.
func (s *scanner) envelope() (Envelope, error) {
	var env Envelope
	err := s.object("message", envelopeKeys, true, func(key string) error {
		s.space()
		start := s.pos
		switch {
		case key == "id":
			s.skip()
			env.ID = s.data[start:s.pos]
		case key == "params" && s.peek() == '{':
			return s.object("params", paramsKeys, true, func(key string) error {
				s.space()
				if key == "_meta" && s.peek() == '{' {
					return s.object("params._meta", nil, false, func(string) error { s.skip(); return nil })
				}
				s.skip()
				return nil
			})
		default:
			s.skip()
		}
		return nil
	})
	return env, err
}

// object reads an object at s, calling value for each key with s before
// the key's value, which value must consume. Keys given twice are refused;
// with folded, so are keys equal ignoring case, and keys that fold to one
// of known without being it. A value that is not an object is skipped.
func (s *scanner) object(where string, known map[string]string, folded bool, value func(key string) error) error {
	s.space()
	if s.peek() != '{' {
		s.skip()
		return nil
	}
	s.pos++
	seen := make(map[string]string)
	for {
		s.space()
		switch s.peek() {
		case '}':
			s.pos++
			return nil
		case 0:
			return nil
		case ',':
			s.pos++
			continue
		}
		key := s.key()
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
		s.space()
		if s.peek() == ':' {
			s.pos++
		}
		if err := value(key); err != nil {
			return err
		}
	}
}

// key reads a string at s and returns its value.
func (s *scanner) key() string {
	start := s.pos
	s.skip()
	var k string
	if err := Unmarshal(s.data[start:s.pos], &k); err != nil {
		return string(s.data[start:s.pos])
	}
	return k
}

// skip moves s past one value: a string, an object or array with all it
// holds, or a literal or number.
func (s *scanner) skip() {
	s.space()
	depth := 0
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case '"':
			s.pos++
			for s.pos < len(s.data) && s.data[s.pos] != '"' {
				if s.data[s.pos] == '\\' {
					s.pos++
				}
				s.pos++
			}
			s.pos = min(s.pos, len(s.data))
			s.pos = min(s.pos+1, len(s.data))
		case '{', '[':
			depth++
			s.pos++
			continue
		case '}', ']':
			if depth == 0 {
				return
			}
			depth--
			s.pos++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
			s.pos++
			continue
		default:
			s.pos++
			continue
		}
		if depth == 0 {
			return
		}
	}
}
