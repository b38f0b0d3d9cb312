package jsonscan

// Open moves past the '{' or '[' at Pos, counting one level more.
func (s *Scanner) Open() error {
	if c := s.Peek(); c != '{' && c != '[' {
		return ErrSyntax
	}
	if s.Depth++; s.Depth > MaxDepth {
		return ErrTooDeep
	}
	s.Pos++
	return nil
}

// More reports whether an element or member follows in the object or
// array that close ends, moving past the comma before it (none before the
// first), or else past close, counting one level less.
func (s *Scanner) More(close byte, first bool) (bool, error) {
	s.Space()
	switch c := s.Peek(); {
	case c == close:
		s.Pos++
		s.Depth--
		return false, nil
	case first:
		return true, nil
	case c == ',':
		s.Pos++
		return true, nil
	}
	return false, ErrSyntax
}

// Colon moves past the white space and the colon after a key.
func (s *Scanner) Colon() error {
	s.Space()
	if s.Peek() != ':' {
		return ErrSyntax
	}
	s.Pos++
	return nil
}

// Key moves past a member's key and its colon, and returns the key as
// written (quotes included).
func (s *Scanner) Key() ([]byte, error) {
	s.Space()
	start := s.Pos
	str, err := s.str(&plainAny)
	if err == nil && str&Invalid != 0 {
		err = ErrSyntax
	}
	if err != nil {
		return nil, err
	}
	key := s.Data[start:s.Pos]
	return key, s.Colon()
}

// Skip moves past the white space and the value at Pos: a string, number
// or literal, or an object or array with all it holds.
func (s *Scanner) Skip() error {
	s.Space()
	if c := s.Peek(); c != '{' && c != '[' {
		return s.scalar(c)
	}
	base := s.Depth
	var open levels
	for {
		s.Space()
		switch c := s.Peek(); c {
		case '{', '[':
			if err := s.Open(); err != nil {
				return err
			}
			open.push(c == '{')
			more, err := s.More(c+2, true) // '{'+2 is '}', '['+2 is ']'
			if err != nil {
				return err
			}
			if more {
				if c == '{' {
					if _, err := s.Key(); err != nil {
						return err
					}
				}
				continue
			}
			open.pop()
		case '"':
			if str, err := s.str(&plainAny); err != nil || str&Invalid != 0 {
				return ErrSyntax
			}
		default:
			if err := s.scalar(c); err != nil {
				return err
			}
		}
		// A value ended: close what it ended.
		for s.Depth > base {
			obj := open.top()
			close := byte(']')
			if obj {
				close = '}'
			}
			more, err := s.More(close, false)
			if err != nil {
				return err
			}
			if more {
				if obj {
					if _, err := s.Key(); err != nil {
						return err
					}
				}
				break
			}
			open.pop()
		}
		if s.Depth == base {
			return nil
		}
	}
}

// levels is a stack of the objects and arrays Skip has open, one bit
// each: set for an object. The first 256 levels need no allocation.
type levels struct {
	n     int
	first [4]uint64
	rest  []uint64
}

func (l *levels) push(object bool) {
	w, bit := l.n/64, uint64(1)<<(l.n%64)
	l.n++
	words := l.first[:]
	if w >= len(l.first) {
		if w -= len(l.first); w == len(l.rest) {
			l.rest = append(l.rest, 0)
		}
		words = l.rest
	}
	if object {
		words[w] |= bit
	} else {
		words[w] &^= bit
	}
}

func (l *levels) pop() { l.n-- }

func (l *levels) top() bool {
	w, i := (l.n-1)/64, uint((l.n-1)%64)
	if w < len(l.first) {
		return l.first[w]>>i&1 == 1
	}
	return l.rest[w-len(l.first)]>>i&1 == 1
}

// Object moves past the object at Pos, calling f with each member's key
// as written and s at the member's value, which f must move past.
func (s *Scanner) Object(f func(key []byte) error) error {
	if err := s.openObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, err := s.nextKey(first)
		if err != nil || key == nil {
			return err
		}
		if err := f(key); err != nil {
			return err
		}
	}
}

// Members moves past the object at Pos, calling f with each member's key
// and value as written (the key's quotes included).
func (s *Scanner) Members(f func(key, val []byte) error) error {
	if err := s.openObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, err := s.nextKey(first)
		if err != nil || key == nil {
			return err
		}
		s.Space()
		start := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		if err := f(key, s.Data[start:s.Pos]); err != nil {
			return err
		}
	}
}

// openObject moves past the white space and the '{' at Pos.
func (s *Scanner) openObject() error {
	s.Space()
	if s.Peek() != '{' {
		return ErrSyntax
	}
	return s.Open()
}

// nextKey moves past the next member's key and colon and returns the key
// as written, or nil past the object's end.
func (s *Scanner) nextKey(first bool) ([]byte, error) {
	more, err := s.More('}', first)
	if err != nil || !more {
		return nil, err
	}
	return s.Key()
}
