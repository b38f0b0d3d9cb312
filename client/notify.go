package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HandlerGrace is how long Close waits, once it has cancelled their
// context, for handlers still running to return (or the transport's own
// close, if that takes longer). A handler that ignores its context and is
// still running then is abandoned: see Client.Close.
const HandlerGrace = 100 * time.Millisecond

// notifier runs the handlers of what the server sends the client: the
// notifications (logging, progress, resource updates, list changes) on one goroutine, from a
// queue of at most Limits.MaxQueuedNotifications; the requests (sampling,
// elicitation) on the go-sdk's goroutines, counted. The go-sdk queues every
// incoming notification without bound and its Close waits until that
// queue is handled; the client's handlers for the go-sdk only enqueue here,
// without blocking, so that queue stays short and Close stays bounded.
type notifier struct {
	max    int
	ctx    context.Context // the handlers' context: cancelled by stop
	cancel context.CancelFunc

	mu       sync.Mutex // guards the fields below
	queue    []note
	lists    map[string]bool // list changes queued (coalesced: at most one per list)
	worker   bool            // the worker goroutine is running
	idle     chan struct{}   // closed when nothing runs: no worker, no request handler
	requests map[*note]bool  // request handlers running
	current  *note           // the notification handler running, if any
	queued   int             // notifications in queue (list changes apart)
	intake   bool            // Close has begun: nothing more is queued
	stopped  bool            // the handlers' context is cancelled: nothing more starts
	dropped  int64
	read     int64         // paced notifications read (see pacer)
	handed   int64         // notifications the go-sdk handed to the handlers
	moved    chan struct{} // closed at the next hand-over, when the reader waits for one
}

// A note is one handler call.
type note struct {
	kind string // "logging", "progress", "list changed: tools", "sampling", …
	list string // the list, for a list change
	run  func(context.Context)
}

func newNotifier(max int) *notifier {
	n := &notifier{max: max, lists: map[string]bool{}, requests: map[*note]bool{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	return n
}

// post queues a notification handler call, or drops and counts it when the
// queue is full or Close has begun. It never blocks.
func (n *notifier) post(kind string, run func(context.Context)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.intake || n.stopped || n.queued >= n.max {
		n.dropped++
		return
	}
	n.queued++
	n.queue = append(n.queue, note{kind: kind, run: run})
	n.startWorker()
}

// postList queues a list change, unless one for the same list is queued
// already: the handler re-reads the whole list, so one pending change
// stands for any number. List changes are never dropped for room, and
// count apart from MaxQueuedNotifications.
func (n *notifier) postList(what string, run func(context.Context)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.intake || n.stopped || n.lists[what] {
		return
	}
	n.lists[what] = true
	n.queue = append(n.queue, note{kind: "list changed: " + what, list: what, run: run})
	n.startWorker()
}

// startWorker starts the worker if it is not running. n.mu is held.
func (n *notifier) startWorker() {
	if n.worker {
		return
	}
	n.worker = true
	n.busy()
	go n.work()
}

// busy makes sure n.idle is open while something runs. n.mu is held.
func (n *notifier) busy() {
	if n.idle == nil {
		n.idle = make(chan struct{})
	}
}

// closeIdle closes n.idle if nothing runs any more. n.mu is held.
func (n *notifier) closeIdle() {
	if !n.worker && len(n.requests) == 0 && n.idle != nil {
		close(n.idle)
		n.idle = nil
	}
}

// work runs the queued handlers one at a time until the queue is empty.
func (n *notifier) work() {
	for {
		n.mu.Lock()
		if len(n.queue) == 0 || n.stopped {
			n.worker, n.current = false, nil
			n.closeIdle()
			n.mu.Unlock()
			return
		}
		nt := n.queue[0]
		n.queue[0] = note{}
		n.queue = n.queue[1:]
		if nt.list != "" {
			delete(n.lists, nt.list) // a change from now on is queued again
		} else {
			n.queued--
		}
		n.current = &nt
		n.mu.Unlock()
		nt.run(n.ctx)
	}
}

// request runs a handler of a server's request on the caller's goroutine,
// with a context also cancelled when Close's drain ends, or refuses it
// once Close has cancelled the handlers.
func (n *notifier) request(ctx context.Context, kind string, run func(context.Context) error) error {
	nt := &note{kind: kind}
	n.mu.Lock()
	if n.stopped {
		n.mu.Unlock()
		return fmt.Errorf("%w: %s request refused", ErrClosed, kind)
	}
	n.requests[nt] = true
	n.busy()
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.requests, nt)
		n.closeIdle()
		n.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(n.ctx, cancel)
	defer stop()
	return run(ctx)
}

// closeIntake stops queueing: from now on notifications are dropped.
// Handlers already queued still run, and requests are still served (a call
// being drained may need one). It returns a channel closed when nothing
// runs.
func (n *notifier) closeIntake() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.intake = true
	return n.idleChan()
}

// idleChan returns a channel closed when nothing runs. n.mu is held.
func (n *notifier) idleChan() <-chan struct{} {
	if n.idle == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return n.idle
}

// stop cancels the handlers' context, drops what is queued (counted) and
// refuses what comes next. It returns a channel closed when nothing runs.
func (n *notifier) stop() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.stopped {
		n.stopped = true
		n.dropped += int64(n.queued)
		n.queued = 0
		n.queue = nil
		clear(n.lists)
		n.cancel()
		if n.moved != nil {
			close(n.moved) // the reader waits no more
			n.moved = nil
		}
	}
	return n.idleChan()
}

// running names the handlers still running, for ReasonHandlerStuck.
func (n *notifier) running() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var kinds []string
	if n.current != nil {
		kinds = append(kinds, n.current.kind)
	}
	for nt := range n.requests {
		kinds = append(kinds, nt.kind)
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

func (n *notifier) droppedCount() int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dropped
}

// DroppedNotifications returns how many notifications (logging, progress)
// were dropped rather than handled: those that found the queue full
// (Limits.MaxQueuedNotifications), that arrived after Close began, or that
// were still queued when Close's drain ended.
func (c *Client) DroppedNotifications() int64 { return c.notes.droppedCount() }

// Pacing. The go-sdk reads the connection on one goroutine. It hands what
// it reads to its handlers on another, through a queue it does not bound.
// When the reader is faster than the hand-over (a flood, a busy machine),
// that queue grows with the flood. So the client holds the reader back
// while more than pacingWindow notifications it has read are not yet
// handed to the client's handlers (queued or dropped there). The go-sdk's
// queue then holds at most that many of them.
//
// Transports that can, pace themselves (clientseam.Pacer). Streamable HTTP
// does: its connection is the go-sdk's own, and a wrapper would hide the
// unexported methods the go-sdk calls on it. The client wraps the
// connections of the others. A cassette replays Streamable HTTP through
// this module's transport, so its replay is paced too. Only the go-sdk's
// own Streamable HTTP transport used bare (see sdkConnection) is not
// paced, since it is no clientseam.Pacer. Its notifications are still
// queued and dropped within Limits.MaxQueuedNotifications.
const (
	pacingWindow = 256
	// pacingStall is how long the reader waits for a hand-over before it
	// forgets the notifications it is waiting for: the go-sdk hands over
	// no notification whose parameters it cannot decode. A busy machine's
	// scheduler may hold a hand-over up: the go-sdk's handing goroutine is
	// not run for tens of milliseconds while its reader is. pacingStall is
	// long enough that such a hand-over is not taken for one that will
	// never come. That mistake would let the reader run a window ahead
	// each time.
	pacingStall = 250 * time.Millisecond
	// catchUpStall is how long a request that has its answer waits, at
	// most, for the go-sdk's next hand-over of a notification read before
	// it (see notifier.catchUp). It is long enough for a loaded machine's
	// scheduler. Only a notification the go-sdk drops costs that long.
	catchUpStall = time.Second
)

// sdkConnection reports whether tr is, or wraps, the go-sdk's own
// Streamable HTTP transport. Its connections have unexported methods the
// go-sdk calls after the handshake (the protocol version header, the
// standalone stream). A wrapper of such a connection would hide them.
func sdkConnection(tr mcp.Transport) bool {
	_, ok := transport.As[*mcp.StreamableClientTransport](tr)
	return ok
}

// pacer returns the wrapper of the connection the go-sdk reads, or nil. A
// transport that paces its own connections (clientseam.Pacer) is asked to.
func (c *Client) pacer(tr mcp.Transport) func(mcp.Connection) mcp.Connection {
	paced := map[string]bool{
		"notifications/tools/list_changed":     true,
		"notifications/resources/list_changed": true,
		"notifications/prompts/list_changed":   true,
		"notifications/message":                c.handlers.Logging != nil,
		"notifications/progress":               c.handlers.Progress != nil,
		"notifications/resources/updated":      c.handlers.ResourceUpdated != nil,
	}
	if d, ok := transport.As[clientseam.Diverter](tr); ok {
		d.SetDiverter(c.divert)
	}
	if p, ok := transport.As[clientseam.Pacer](tr); ok {
		p.SetPacer(func(ctx context.Context, method string) {
			c.announce(method)
			if paced[method] {
				c.notes.admit(ctx)
			}
		})
		return nil
	}
	if sdkConnection(tr) {
		return nil // the go-sdk's own connection: see above
	}
	return func(conn mcp.Connection) mcp.Connection {
		return &pacedConn{Connection: conn, n: c.notes, paced: paced, announce: c.announce, divert: c.divert}
	}
}

// pacedConn holds the go-sdk's reader back; see pacer.
type pacedConn struct {
	mcp.Connection
	n        *notifier
	paced    map[string]bool // the notifications the go-sdk hands to the client's handlers
	announce func(method string)
	divert   func(ctx context.Context, r *jsonrpc.Request) bool // see divert
}

func (p *pacedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := p.Connection.Read(ctx)
		r, ok := msg.(*jsonrpc.Request)
		if !ok || err != nil || r.IsCall() {
			return msg, err
		}
		if p.divert != nil && p.divert(ctx, r) {
			continue // the client's own: the go-sdk never sees it
		}
		if p.announce != nil {
			p.announce(r.Method)
		}
		if p.paced[r.Method] {
			p.n.admit(ctx)
		}
		return msg, err
	}
}

// catchUp waits until the go-sdk has handed the client's handlers every
// notification the connection had read when catchUp was called. These are
// the ones a server sent before the answer just read, on the answer's
// stream or the connection: progress, log messages. So a request returns
// with them queued. The go-sdk hands notifications over on a goroutine of
// its own. Without the wait, an answer read after them could overtake
// them, and a Close right after the call would drop them. catchUp waits no
// longer than catchUpStall without a hand-over. (The go-sdk hands over no
// notification whose parameters it cannot decode. One such costs a call
// that long, once.)
func (n *notifier) catchUp(ctx context.Context) {
	n.mu.Lock()
	defer n.mu.Unlock()
	target := n.read
	for n.handed < target && !n.stopped {
		before := n.handed
		if !n.awaitHandOver(ctx, catchUpStall) {
			return
		}
		if n.handed == before {
			n.read = max(n.handed, n.read-(target-n.handed)) // what did not come is not coming
			return
		}
	}
}

// awaitHandOver waits, n.mu held (and released meanwhile), for the go-sdk's
// next hand-over, at most stall; it reports false when ctx ended.
func (n *notifier) awaitHandOver(ctx context.Context, stall time.Duration) bool {
	if n.moved == nil {
		n.moved = make(chan struct{})
	}
	moved := n.moved
	n.mu.Unlock()
	t := time.NewTimer(stall)
	select {
	case <-moved:
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
	n.mu.Lock()
	return ctx.Err() == nil
}

// arrived counts a notification the go-sdk handed to the client's handlers,
// once they have queued (or dropped) it.
func (n *notifier) arrived() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.handed++
	if n.moved != nil {
		close(n.moved)
		n.moved = nil
	}
}

// admit counts a notification read, and waits while the go-sdk holds more
// than pacingWindow of them not yet handed over.
func (n *notifier) admit(ctx context.Context) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.read++
	for n.read-n.handed > pacingWindow && !n.stopped {
		before := n.handed
		if !n.awaitHandOver(ctx, pacingStall) {
			return
		}
		if n.handed == before {
			n.read = n.handed // nothing moved: what was counted is not coming
		}
	}
}
