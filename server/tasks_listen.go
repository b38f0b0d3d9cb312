package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"github.com/looprig/mcp/internal/wire"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Status pushes. The go-sdk v1.8.0 answers subscriptions/listen itself,
// but it knows no taskIds (it acknowledges none and, asked for nothing
// else, ends the stream at once), and it sends no notification it does
// not know (notifications/tasks among them). HTTPHandler therefore serves
// a 2026-07-28 subscriptions/listen that names taskIds itself, from the
// body it has read, as an SSE stream of its own: the acknowledgement,
// then a notifications/tasks for each status change of each task agreed,
// as the store's TaskWatcher tells it.

// Bounds of a subscriptions/listen stream that names tasks.
const (
	// DefaultTaskPushQueue bounds the status pushes a listen stream holds
	// while its client reads slowly: 32. Past it a push is dropped (and
	// counted in the server's Logger), never waited for: the task runs on,
	// and tasks/get still reads its status.
	DefaultTaskPushQueue = 32
	// MaxListenTasks bounds the tasks one listen stream watches: 100,
	// DefaultMaxTasks. Only the first MaxListenTasks distinct taskIds are
	// looked up; the ids past them are not acknowledged, whether they are
	// the principal's or not. So one request costs the store at most
	// MaxListenTasks watches and reads, however many ids it names.
	MaxListenTasks = DefaultMaxTasks
)

// methodTasksNotification is the status push of the tasks extension.
const methodTasksNotification = "notifications/tasks"

// listenParams are what HTTPHandler reads of a subscriptions/listen.
type listenParams struct {
	Notifications *struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
	Meta struct {
		Caps *taskCaps `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

// listenRequest returns the single request of in and the task ids it
// names when HTTPHandler serves it: a 2026-07-28 subscriptions/listen
// that names taskIds, from a client that declares the tasks extension,
// on a server whose store tells of status changes. Any other listen is
// the go-sdk's.
func (h *HTTPHandler) listenRequest(req *http.Request, in *inbound) (*jsonrpc.Request, []string) {
	if h.s.tasks == nil || h.s.tasks.watcher == nil || in == nil || req.Header.Get("Mcp-Protocol-Version") != protocol.Revision20260728 {
		return nil, nil
	}
	r, _, ok := in.single()
	if !ok || !r.IsCall() || r.Method != "subscriptions/listen" {
		return nil, nil
	}
	var p listenParams
	if wire.Unmarshal(r.Params, &p) != nil || p.Notifications == nil || len(p.Notifications.TaskIDs) == 0 {
		return nil, nil
	}
	if _, declared := p.Meta.Caps.extensions()[TasksExtension]; !declared {
		return nil, nil
	}
	return r, p.Notifications.TaskIDs
}

// serveTaskListen serves the listen stream r for the tasks ids: the
// acknowledgement names those of the request's principal (another's, or
// an unknown id, is left out, as tasks/get reads it unknown), then each
// status change of each is pushed, until all have ended (the stream then
// ends with the listen's result), the client goes away, or Close. Only the
// taskIds are agreed: a client that also wants list changes opens a
// listen of its own for them.
func (h *HTTPHandler) serveTaskListen(w http.ResponseWriter, req *http.Request, r *jsonrpc.Request, ids []string) {
	ctx, end, ok := h.track(w, req)
	if !ok {
		return
	}
	defer end()
	l := &taskListen{principal: taskPrincipal(req), queue: make(chan *Task, DefaultTaskPushQueue), open: make(map[string]bool), ended: make(chan struct{})}
	defer l.stop()
	agreed, err := l.watch(ctx, h.s.tasks, ids)
	if err != nil {
		h.s.logger.Warn("task listen refused", "error", err)
		writeResponse(w, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is busy, retry later: watching the tasks: " + err.Error()}})
		return
	}
	subID := r.ID.Raw()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ack, _ := json.Marshal(map[string]any{
		"notifications": map[string]any{"taskIds": agreed},
		"_meta":         map[string]any{mcp.MetaKeySubscriptionID: subID},
	})
	if writeEvent(w, &jsonrpc.Request{Method: "notifications/subscriptions/acknowledged", Params: ack}) != nil {
		return
	}
	l.pushes(ctx, w, h.s.tasks, subID)
	if n := l.droppedCount(); n > 0 {
		h.s.logger.Warn("task status pushes dropped", "dropped", n, "bound", DefaultTaskPushQueue)
	}
	if ctx.Err() == nil {
		res, _ := json.Marshal(map[string]any{"resultType": "complete", "_meta": map[string]any{mcp.MetaKeySubscriptionID: subID}})
		writeEvent(w, &jsonrpc.Response{ID: r.ID, Result: res})
	}
}

// writeEvent writes msg as one SSE event and flushes it.
func writeEvent(w http.ResponseWriter, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 32)
	buf.WriteString("event: message\ndata: ")
	buf.Write(b)
	buf.WriteString("\n\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// taskListen is one listen stream's watch of its tasks.
type taskListen struct {
	principal string
	queue     chan *Task    // the changes not yet sent; bounded
	ended     chan struct{} // closed once every task watched has ended

	// mu guards the fields below.
	mu      sync.Mutex
	open    map[string]bool // the tasks watched that have not ended, by id
	stops   []func()
	dropped int
	done    bool // ended is closed
}

// watch looks up the first MaxListenTasks distinct ids, watches those of
// the principal, and returns them. Each is watched before it is read, so
// that no change falls between.
func (l *taskListen) watch(ctx context.Context, t *tasks, ids []string) ([]string, error) {
	agreed, seen := []string{}, []string{}
	l.mu.Lock()
	l.open[""] = true // no id: holds ended open until every id is watched
	l.mu.Unlock()
	for _, id := range ids {
		if id == "" || slices.Contains(seen, id) {
			continue
		}
		if len(seen) == MaxListenTasks {
			break
		}
		seen = append(seen, id)
		l.mu.Lock()
		l.open[id] = true
		l.mu.Unlock()
		stop, err := t.watcher.WatchTask(ctx, id, l.told)
		if err != nil {
			return nil, err
		}
		task, err := t.store.Get(ctx, l.principal, id)
		switch {
		case err != nil:
			stop() // another's, unknown, or the store failed: not agreed
			l.forget(id)
			continue
		case task.Status.Terminal():
			stop() // nothing more to tell
			l.forget(id)
		default:
			l.mu.Lock()
			l.stops = append(l.stops, stop)
			l.mu.Unlock()
		}
		agreed = append(agreed, id)
	}
	l.mu.Lock()
	if delete(l.open, ""); len(l.open) == 0 {
		l.finish()
	}
	l.mu.Unlock()
	return agreed, nil
}

// forget stops waiting for the task id.
func (l *taskListen) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.open, id)
}

// told queues a change of a task watched: the store calls it. Another
// principal's task is never told; a full queue drops the change.
func (l *taskListen) told(task *Task) {
	if task.Principal != l.principal {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || !l.open[task.ID] {
		return
	}
	select {
	case l.queue <- task:
	default:
		l.dropped++
	}
	if task.Status.Terminal() {
		delete(l.open, task.ID)
		if len(l.open) == 0 {
			l.finish()
		}
	}
}

// finish closes ended. l.mu is held.
func (l *taskListen) finish() {
	if !l.done {
		l.done = true
		close(l.ended)
	}
}

func (l *taskListen) droppedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// stop ends every watch.
func (l *taskListen) stop() {
	l.mu.Lock()
	stops := l.stops
	l.stops = nil
	l.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// pushes sends the changes queued until every task has ended (and what was
// queued is sent), the write fails, or ctx ends.
func (l *taskListen) pushes(ctx context.Context, w http.ResponseWriter, t *tasks, subID any) {
	send := func(task *Task) bool {
		return writeEvent(w, &jsonrpc.Request{Method: methodTasksNotification, Params: t.note(task, subID)}) == nil
	}
	for {
		select {
		case task := <-l.queue:
			if !send(task) {
				return
			}
		case <-l.ended:
			for {
				select {
				case task := <-l.queue:
					if !send(task) {
						return
					}
				default:
					return
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

// note returns the params of a notifications/tasks: the task as tasks/get
// reports it (a DetailedTask, without resultType), and the listen's
// subscription id in its _meta.
func (t *tasks) note(task *Task, subID any) json.RawMessage {
	w := t.wire(task, "complete")
	n := struct {
		*taskWire
		ResultType *string        `json:"resultType,omitempty"` // hides taskWire's
		Meta       map[string]any `json:"_meta"`
	}{taskWire: w, Meta: map[string]any{mcp.MetaKeySubscriptionID: subID}}
	b, _ := json.Marshal(n)
	return b
}
