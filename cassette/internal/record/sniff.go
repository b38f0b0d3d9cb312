package record

import (
	"net/http"
	"sync"
)

// NewSniffer returns a sniffer of the headers named in secret (canonical
// names).
func NewSniffer(secret map[string]bool) *Sniffer { return &Sniffer{secret: secret} }

// A Sniffer passes requests through, keeping the credential headers they
// carry: what an HTTP factory recorded at the message level (legacy SSE)
// sends below the transport, to be redacted wherever it appears.
type Sniffer struct {
	secret map[string]bool
	mu     sync.Mutex // guards seen
	seen   []http.Header
}

// Wrap returns the sniffing round tripper over base.
func (s *Sniffer) Wrap(base http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		h := http.Header{}
		for k, vs := range req.Header {
			if s.secret[http.CanonicalHeaderKey(k)] {
				h[k] = vs
			}
		}
		resp, err := base.RoundTrip(req)
		if resp != nil {
			for k, vs := range resp.Header {
				if s.secret[http.CanonicalHeaderKey(k)] {
					h[k] = append(h[k], vs...)
				}
			}
		}
		if len(h) > 0 {
			s.mu.Lock()
			s.seen = append(s.seen, h)
			s.mu.Unlock()
		}
		return resp, err
	})
}

// Taken returns the credential headers seen, in order.
func (s *Sniffer) Taken() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
