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
// written (quotes included) and what it holds.
func (s *Scanner) Key() ([]byte, Str, error) {
	s.Space()
	start := s.Pos
	str, err := s.String()
	if err != nil {
		return nil, 0, err
	}
	key := s.Data[start:s.Pos]
	return key, str, s.Colon()
}

// Skip moves past the white space and the value at Pos: a string, number
// or literal, or an object or array with all it holds.
func (s *Scanner) Skip() error {
	s.Space()
	if c := s.Peek(); c != '{' && c != '[' {
		return s.Scalar()
	}
	base := s.Depth
	var open levels
	for {
		s.Space()
		if c := s.Peek(); c == '{' || c == '[' {
			if err := s.Open(); err != nil {
				return err
			}
			open.push(c == '{')
			if more, err := s.More(c+2, true); err != nil { // '{'+2 is '}', '['+2 is ']'
				return err
			} else if more {
				if err := s.member(c == '{'); err != nil {
					return err
				}
				continue
			}
			open.pop()
		} else if err := s.Scalar(); err != nil {
			return err
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
				if err := s.member(obj); err != nil {
					return err
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

// member moves past a member's key and colon when in an object.
func (s *Scanner) member(object bool) error {
	if !object {
		return nil
	}
	_, str, err := s.Key()
	if err == nil && str&Invalid != 0 {
		err = ErrSyntax
	}
	return err
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
	s.Space()
	if s.Peek() != '{' {
		return ErrSyntax
	}
	if err := s.Open(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := s.More('}', first)
		if err != nil || !more {
			return err
		}
		key, str, err := s.Key()
		if err == nil && str&Invalid != 0 {
			err = ErrSyntax
		}
		if err != nil {
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
	return s.Object(func(key []byte) error {
		s.Space()
		start := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		return f(key, s.Data[start:s.Pos])
	})
}
