package stdio

import "sync"

// ring keeps the last size bytes written to it. Its buffer is made at the
// first write: most children write nothing to stderr.
type ring struct {
	size int
	mu   sync.Mutex // guards buf, next, full
	buf  []byte     // nil until the first write, then size bytes
	next int        // where the next byte goes
	full bool       // whether buf has wrapped at least once
}

func newRing(size int) *ring { return &ring{size: size} }

// Write keeps the tail of p; it never fails and never grows the buffer.
func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf == nil {
		r.buf = make([]byte, r.size)
	}
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.next, r.full = 0, true
		return n, nil
	}
	c := copy(r.buf[r.next:], p)
	copy(r.buf, p[c:])
	if r.next+len(p) >= len(r.buf) {
		r.full = true
	}
	r.next = (r.next + len(p)) % len(r.buf)
	return n, nil
}

// Bytes returns a copy of what the ring holds, oldest byte first.
func (r *ring) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]byte(nil), r.buf[:r.next]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
