package fakeserver

import (
	"bytes"
	"net/http"
	"strings"
)

// logWriter records a response's status and the last event id sent in the
// handler's log. Flush and Hijack reach the connection through Unwrap
// (http.ResponseController).
type logWriter struct {
	http.ResponseWriter
	h      *HTTPHandler
	idx    int
	status bool // the status is recorded
}

func (l *logWriter) WriteHeader(code int) {
	if !l.status {
		l.status = true
		l.h.mu.Lock()
		l.h.log[l.idx].Status = code
		l.h.mu.Unlock()
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *logWriter) Write(p []byte) (int, error) {
	if !l.status {
		l.WriteHeader(http.StatusOK)
	}
	if id := lastEventID(p); id != "" {
		l.h.mu.Lock()
		l.h.log[l.idx].SentEventID = id
		l.h.mu.Unlock()
	}
	return l.ResponseWriter.Write(p)
}

func (l *logWriter) Flush() { http.NewResponseController(l.ResponseWriter).Flush() }

func (l *logWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// lastEventID returns the value of the last "id:" field line in p, which
// holds whole server-sent events (the go-sdk writes one event per Write).
func lastEventID(p []byte) string {
	id := ""
	for line := range strings.SplitSeq(string(p), "\n") {
		if v, ok := strings.CutPrefix(line, "id:"); ok {
			id = strings.TrimPrefix(v, " ")
		}
	}
	return id
}

// dropWriter passes the first `after` server-sent events through (without
// their id: lines if stripIDs), then sends retry: 10, flushes and cuts the
// connection; later writes are swallowed, as if the network had eaten them.
type dropWriter struct {
	http.ResponseWriter
	after    int
	stripIDs bool
	events   int
	dropped  bool
}

func (d *dropWriter) Write(p []byte) (int, error) {
	n := len(p)
	if d.dropped {
		return n, nil
	}
	if d.events >= d.after {
		d.drop()
		return n, nil
	}
	if d.stripIDs {
		p = stripIDLines(p)
	}
	d.events += bytes.Count(p, []byte("\n\n"))
	if _, err := d.ResponseWriter.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (d *dropWriter) Flush() {
	if !d.dropped {
		http.NewResponseController(d.ResponseWriter).Flush()
	}
}

func (d *dropWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

func (d *dropWriter) drop() {
	d.dropped = true
	rc := http.NewResponseController(d.ResponseWriter)
	if !d.stripIDs {
		// The client would otherwise wait a second (the go-sdk's backoff)
		// before it resumes.
		d.ResponseWriter.Write([]byte("retry: 10\n\n"))
	}
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
}

// stripIDLines returns p without its "id:" field lines.
func stripIDLines(p []byte) []byte {
	var b bytes.Buffer
	for line := range bytes.SplitAfterSeq(p, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("id:")) {
			b.Write(line)
		}
	}
	return b.Bytes()
}

// endpointWriter rewrites the legacy SSE endpoint event so that it names the
// same path and query on another origin.
type endpointWriter struct {
	http.ResponseWriter
	other string
	done  bool
}

func (e *endpointWriter) Write(p []byte) (int, error) {
	n := len(p)
	if !e.done && bytes.Contains(p, []byte("event: endpoint\n")) {
		e.done = true
		p = bytes.Replace(p, []byte("data: /"), []byte("data: "+e.other+"/"), 1)
	}
	if _, err := e.ResponseWriter.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (e *endpointWriter) Flush() { http.NewResponseController(e.ResponseWriter).Flush() }

func (e *endpointWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
