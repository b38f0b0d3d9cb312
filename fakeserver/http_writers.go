package fakeserver

import (
	"net/http"

	"github.com/looprig/mcp/internal/sse"
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

// lastEventID returns the id of the last event in p that has one; p holds
// whole server-sent events (the go-sdk writes one event per Write).
func lastEventID(p []byte) string {
	evs, _ := sse.Parse(p)
	id := ""
	for _, e := range evs {
		if e.ID != "" {
			id = e.ID
		}
	}
	return id
}

// dropWriter passes through the first `after` server-sent events that
// carry a message (without their id: lines if stripIDs). Then it sends
// retry: 10, flushes and cuts the connection before the next message.
// Later writes are dropped silently, as if the network had lost them.
// Events with no message (the 2025-11-25 priming event, whose data is
// empty) always pass. The cut falls where a message is, so it is the same
// on every revision, and a call whose reply is cut has run.
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
	evs, _ := sse.Parse(p)
	messages := 0
	for _, e := range evs {
		if len(e.Data) > 0 {
			messages++
		}
	}
	if messages > 0 && d.events >= d.after {
		d.drop()
		return n, nil
	}
	if d.stripIDs {
		p = p[:0:0]
		for _, e := range evs {
			e.ID = ""
			p, _ = sse.Append(p, e) // a parsed event always writes
		}
	}
	d.events += messages
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
		sse.Write(d.ResponseWriter, sse.Event{Retry: "10"})
	}
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
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
	if evs, _ := sse.Parse(p); !e.done && len(evs) > 0 && evs[0].Name == "endpoint" {
		e.done = true
		evs[0].Data = append([]byte(e.other), evs[0].Data...)
		p = p[:0:0]
		for _, ev := range evs {
			p, _ = sse.Append(p, ev)
		}
	}
	if _, err := e.ResponseWriter.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (e *endpointWriter) Flush() { http.NewResponseController(e.ResponseWriter).Flush() }

func (e *endpointWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
