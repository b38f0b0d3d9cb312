package streamablehttp_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// isToolCall reports whether r is a POST carrying a tools/call, leaving its
// body readable.
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	data, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	return strings.Contains(string(data), `"tools/call"`)
}

// onFirstToolCall runs fault for the first tools/call POST only; every other
// request goes to next.
func onFirstToolCall(fault func(w http.ResponseWriter, r *http.Request, next http.Handler)) func(http.Handler) http.Handler {
	var fired atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isToolCall(r) && fired.CompareAndSwap(false, true) {
				fault(w, r, next)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// dropWriter passes the first `after` server-sent events through, then
// (optionally) sends a retry: field and cuts the connection; later writes
// are swallowed, as if the network had eaten them.
type dropWriter struct {
	http.ResponseWriter
	after   int
	retry   string
	events  int
	dropped bool
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if d.dropped {
		return len(p), nil
	}
	if d.events >= d.after {
		d.drop()
		return len(p), nil
	}
	d.events += bytes.Count(p, []byte("\n\n"))
	return d.ResponseWriter.Write(p)
}

func (d *dropWriter) Flush() {
	if !d.dropped {
		http.NewResponseController(d.ResponseWriter).Flush()
	}
}

func (d *dropWriter) drop() {
	d.dropped = true
	rc := http.NewResponseController(d.ResponseWriter)
	if d.retry != "" {
		d.ResponseWriter.Write([]byte("retry: " + d.retry + "\n\n"))
	}
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
}

// dropAfter cuts the first tools/call response stream after n events.
func dropAfter(n int, retry string) func(http.Handler) http.Handler {
	return onFirstToolCall(func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		next.ServeHTTP(&dropWriter{ResponseWriter: w, after: n, retry: retry}, r)
	})
}

// endless answers with headers and then an endless body of filler, until
// the client goes away.
func endless(contentType, prefix string) func(http.Handler) http.Handler {
	return onFirstToolCall(func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		if _, err := io.WriteString(w, prefix); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}
