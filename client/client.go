package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultImplementation returns how a client introduces itself to servers
// when its Definition does not say: name "looprig-mcp" and [Version]. Each
// call returns a new value.
func DefaultImplementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "looprig-mcp", Version: Version}
}

// A Client is a connection to one MCP server: its session, its catalog and
// the bindings a harness exposes to a model. All methods are safe for
// concurrent use.
type Client struct {
	def      Definition
	limits   Limits
	handlers Handlers
	session  *mcp.ClientSession
	conn     *capture
	clock    clock // as a task's wait sees time
	// lateWait is how long a given-up tools/call that may create a task
	// waits for its reply (TaskCancelWait; tests change it).
	lateWait time.Duration

	// base is the parent of every in-flight call's context; Close cancels
	// it when the drain timeout passes.
	base       context.Context
	cancelBase context.CancelFunc
	inflight   sync.WaitGroup // calls
	notes      *notifier      // runs the handlers of what the server sends
	progress   atomic.Int64   // last progress token issued
	// logLevel, once set, is the level every request carries in its _meta
	// (2026-07-28 has no logging/setLevel; see logLevelMeta).
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
	logLevel atomic.Pointer[mcp.LoggingLevel]

	mu      sync.Mutex // guards the fields below
	closing bool
	// taskListenable is set when the transport shows the client a task
	// listen's acknowledgement and end (Streamable HTTP); set at Connect.
	taskListenable bool
	catalog        *Catalog
	accepted       map[string]string // tool fingerprints accepted, by tool name
	held           map[string]bool   // tools that changed and are not accepted
	// acceptedSkills are the skill fingerprints accepted, by URI.
	acceptedSkills map[string]string
	disabled       map[string]bool   // tools whose binding is disabled
	models         map[string]string // model name by tool name
	tools          map[string]string // tool name by model name
	drift          *Drift
	subs           map[string]bool // resource URIs subscribed to
	// wanted are the resource URIs whose updates reach
	// Handlers.ResourceUpdated: from the start of Subscribe until the start
	// of Unsubscribe (or Close).
	wanted map[string]bool
	// listens are the subscriptions/listen streams the server acknowledged
	// for wanted URIs (2026-07-28), by URI: the stream's subscriptionId.
	listens map[string]string
	ended   []string // the subscriptionIds of listen streams ended, the last maxEnded
	pending []string // lists that changed before Connect finished
	// announced counts the list changes the connection has read, by list,
	// as it reads them; absorbed, those Connect re-discovered before it
	// returned; handled, those the go-sdk has handed to listChanged.
	announced, absorbed, handled map[string]int
	// listAcked is closed once the server acknowledged the go-sdk's
	// subscriptions/listen for list changes (2026-07-28).
	listAcked   chan struct{}
	listAckOnce sync.Once
	acks        map[string][]chan struct{} // Subscribe calls awaiting the server's acknowledgement, by URI
	taskWakes   map[string][]chan struct{} // task waits woken by a pushed status, by task id (taskpush.go)
	early       []early                    // tasks started and not waited on yet, oldest first (taskpush.go)
	taskListens map[string][]*taskListen   // the waits' open subscriptions/listen streams, by task id (tasklisten.go)

	closeOnce sync.Once
	closeErr  error
}

// Connect starts the Definition's transport, performs the handshake at the
// profile's protocol revision and discovers the catalog, all within
// Limits.ConnectTimeout. h may be nil.
//
// On failure nothing is left running, and the error is a *Error whose
// Diagnosis tells how a child process ended, if it did.
func Connect(ctx context.Context, def Definition, h *Handlers) (*Client, error) {
	if err := def.validate(); err != nil {
		return nil, &Error{Class: ClassPolicy, Op: OpConnect, Server: def.Name, Err: err}
	}
	if h == nil {
		h = &Handlers{}
	}
	c := newClient(def, h)
	fail := func(op string, err error, connecting bool) (*Client, error) {
		c.cancelBase()
		waitFor(c.notes.stop(), HandlerGrace)
		d := c.conn.diagnose()
		return nil, &Error{Class: classify(err, d, connecting, c.classifier()), Op: op, Server: def.Name, Err: explain(err, c.classifier()), Diagnosis: d}
	}

	tr, err := def.Transport.Transport()
	if err != nil {
		return fail(OpConnect, err, true)
	}
	c.conn = &capture{inner: tr, pace: chain(c.pacer(tr), c.tapper(tr))}
	ctx, cancel := context.WithTimeout(ctx, c.limits.ConnectTimeout)
	defer cancel()
	sdk, err := c.sdkClient(h)
	if err != nil {
		return fail(OpConnect, err, true)
	}
	// The go-sdk negotiates: offered 2026-07-28, it tries server/discover
	// and falls back to initialize at 2025-11-25; offered an older
	// revision, it initializes. The revision it ends up with is checked
	// against the profile.
	o, _ := def.negotiation() // validated above
	cs, err := sdk.Connect(ctx, c.conn, &mcp.ClientSessionOptions{ProtocolVersion: o.version})
	if err != nil {
		if refused := refusedRevision(err, def.Profile, o); refused != nil {
			err = refused
		}
		return fail(OpConnect, err, true)
	}
	c.session = cs
	if got := cs.InitializeResult().ProtocolVersion; !slices.Contains(o.accept, got) {
		cs.Close()
		return fail(OpConnect, revisionRefused(def, got, o), false)
	}
	if h.Logging != nil {
		if err := c.askForLogs(ctx, h.LogLevel); err != nil {
			cs.Close()
			return fail(OpConnect, err, false)
		}
	}
	c.awaitListAck(ctx, cs.InitializeResult())
	cat, err := discover(ctx, cs, c.limits, c.def.Skills)
	if err != nil {
		cs.Close()
		return fail(OpDiscover, err, false)
	}
	c.installCatalog(ctx, cs, cat, h)
	return c, nil
}

// newClient returns the Client of def and h, not yet connected, with its
// base context and notifier running.
func newClient(def Definition, h *Handlers) *Client {
	c := &Client{
		def:       def,
		limits:    def.Limits.withDefaults(),
		handlers:  *h,
		disabled:  map[string]bool{},
		subs:      map[string]bool{},
		wanted:    map[string]bool{},
		listens:   map[string]string{},
		announced: map[string]int{}, absorbed: map[string]int{}, handled: map[string]int{},
		clock: realClock{}, lateWait: TaskCancelWait,
	}
	for _, t := range def.Disabled {
		c.disabled[t] = true
	}
	c.base, c.cancelBase = context.WithCancel(context.Background())
	c.notes = newNotifier(c.limits.MaxQueuedNotifications)
	return c
}

// sdkClient returns the go-sdk client that serves h for c: its roots, the
// middleware that watches acknowledgements, asks for log levels and
// declares tasks, and the tasks extension's methods.
func (c *Client) sdkClient(h *Handlers) (*mcp.Client, error) {
	impl := c.def.Implementation
	if impl == nil {
		impl = DefaultImplementation()
	}
	sdk := mcp.NewClient(impl, c.options(h))
	if h.Roots != nil {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Client.AddRoots
		sdk.AddRoots(h.Roots...)
	}
	c.listAcked = make(chan struct{})
	// The caller's middleware first: each Add wraps what is there, so it
	// is innermost and sees what the built-in middleware adds to _meta.
	sdk.AddSendingMiddleware(c.def.SendingMiddleware...)
	sdk.AddReceivingMiddleware(c.watchAcks)
	gate := &fallbackGate{classify: func(err error) FailureClass { return classify(err, nil, true, c.classifier()) }}
	sdk.AddSendingMiddleware(gate.middleware, c.logLevelMeta, declareTasks)
	sdk.AddSendingMiddleware(sendTaskListen) // outermost: the rest see subscriptions/listen
	if err := errors.Join(registerTaskMethods(sdk), registerSkillMethods(sdk)); err != nil {
		return nil, err
	}
	return sdk, nil
}

// installCatalog installs cat, the catalog Connect discovered. It also
// hands on the list changes the server announced meanwhile. (A server that
// sets its lists up as the session starts announces one.) Such a change is
// discovered again before Connect returns, once. So the catalog Connect
// returns is the changed one. The second listing also has a fixed place in
// the session, before the caller's first call, so a recording of it is the
// same every time. The connection counts announcements as it reads them,
// before the go-sdk hands them on. So one read before the last listing's
// answer is never missed. Changes announced during that second listing are
// handled after Connect, as every later one is.
func (c *Client) installCatalog(ctx context.Context, cs *mcp.ClientSession, cat *Catalog, h *Handlers) {
	c.mu.Lock()
	changed := slices.Clone(c.pending)
	for _, what := range listKinds {
		if c.announced[what] > 0 && !slices.Contains(changed, what) {
			changed = append(changed, what)
		}
	}
	c.absorbed = maps.Clone(c.announced)
	c.pending = nil
	c.mu.Unlock()
	if len(changed) > 0 {
		if again, err := discover(ctx, cs, c.limits, c.def.Skills); err == nil {
			cat = again
		}
	}
	c.mu.Lock()
	c.install(cat, true)
	drift, pending := c.drift, c.pending
	c.pending = nil
	c.mu.Unlock()
	if drift != nil && h.CatalogChanged != nil {
		h.CatalogChanged(drift)
	}
	for _, what := range changed {
		if h.ListChanged != nil {
			c.notes.postList(what, func(context.Context) { h.ListChanged(what, cat) })
		}
	}
	for _, what := range pending {
		c.listChanged(what)
	}
}

// capture is the transport handed to the go-sdk: it keeps the connection
// so the client can ask it why it ended. It returns the transport's own
// connection unchanged, since the go-sdk talks to some connections through
// unexported methods that a wrapper would hide.
type capture struct {
	inner mcp.Transport
	pace  func(mcp.Connection) mcp.Connection // wraps the connection for the go-sdk, if set
	mu    sync.Mutex                          // guards conn
	conn  mcp.Connection
}

func (t *capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	t.mu.Lock()
	t.conn = conn
	t.mu.Unlock()
	if err == nil && t.pace != nil {
		return t.pace(conn), nil
	}
	return conn, err
}

func (t *capture) diagnose() *transport.Diagnosis {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := transport.As[transport.Diagnoser](t.conn); ok {
		return d.Diagnose()
	}
	return nil
}

// install makes cat the current catalog, computing bindings and what is
// held against the pin. c.mu is held.
func (c *Client) install(cat *Catalog, connecting bool) {
	prev := c.catalog
	c.catalog = cat
	c.models = ModelNames(c.def.Name, slices.Collect(maps.Keys(cat.ToolFingerprints)))
	c.tools = make(map[string]string, len(c.models))
	for tool, model := range c.models {
		c.tools[model] = tool
	}
	pinned := c.def.Fingerprint != ""
	switch {
	case connecting && pinned && cat.Fingerprint != c.def.Fingerprint:
		c.accepted = c.def.ToolFingerprints
		if c.accepted == nil {
			c.accepted = map[string]string{} // nothing known: every tool is held
		}
	case connecting || !pinned:
		c.accepted = cat.ToolFingerprints
	}
	switch {
	case connecting && pinned && cat.Fingerprint != c.def.Fingerprint:
		c.acceptedSkills = c.def.SkillFingerprints // nil: every skill is held
	case connecting || !pinned:
		c.acceptedSkills = cat.SkillFingerprints
	}
	var skills []string
	if pinned {
		skills = skillDrift(cat, c.acceptedSkills)
	}
	c.held = map[string]bool{}
	for tool, fp := range cat.ToolFingerprints {
		if c.accepted[tool] != fp {
			c.held[tool] = true
		}
	}
	c.drift = nil
	if len(c.held) > 0 || len(c.accepted) != len(cat.ToolFingerprints) || len(skills) > 0 {
		want := c.def.Fingerprint
		if prev != nil && !connecting {
			want = prev.Fingerprint
		}
		c.drift = newDrift(want, cat, c.accepted)
		c.drift.Skills = skills
	}
}

// Catalog returns the current catalog. It is replaced, not changed, when
// the server's lists change; callers must not modify it.
func (c *Client) Catalog() *Catalog {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.catalog
}

// Session returns the underlying go-sdk session, for what this package does
// not wrap. Calls made through it bypass bindings and draining.
func (c *Client) Session() *mcp.ClientSession { return c.session }

// ProtocolVersion returns the negotiated protocol revision.
func (c *Client) ProtocolVersion() string { return c.session.InitializeResult().ProtocolVersion }

// Conn returns the transport's connection, for what only it knows: a
// *stdio.Conn gives the child's process id, for instance.
func (c *Client) Conn() mcp.Connection {
	c.conn.mu.Lock()
	defer c.conn.mu.Unlock()
	return c.conn.conn
}

// Diagnose returns what the transport knows of the peer's end, or nil.
func (c *Client) Diagnose() *transport.Diagnosis { return c.conn.diagnose() }

// begin registers an in-flight operation; it fails once Close has begun.
func (c *Client) begin(op, tool string) (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil, &Error{Class: ClassClosed, Op: op, Server: c.def.Name, Tool: tool, Err: ErrClosed}
	}
	c.inflight.Add(1)
	return c.base, nil
}

// bound returns ctx cancelled also when base is, and after
// Limits.CallTimeout.
func (c *Client) bound(ctx, base context.Context) (context.Context, context.CancelFunc) {
	var cancel context.CancelFunc
	if c.limits.CallTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.limits.CallTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	stop := context.AfterFunc(base, cancel)
	return ctx, func() { stop(); cancel() }
}

// fail wraps err from an operation into an *Error.
func (c *Client) fail(op, tool string, err error) error {
	if op != OpClose && c.base.Err() != nil && !errors.Is(err, ErrClosed) {
		// Close has cancelled the operations still in flight and closes the
		// connection under them: whatever ended this one, its context or
		// the connection closing first, is the close.
		err = fmt.Errorf("%w: call cancelled at close: %w", ErrClosed, err)
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeMissingRequiredClientCapabilities {
		// The server checked before asking: the client declared no
		// capability because it has no handler for it.
		err = fmt.Errorf("%w: %w", ErrNoHandler, err)
	}
	d := c.conn.diagnose()
	class := classify(err, d, false, c.classifier())
	if errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeHeaderMismatch {
		err = fmt.Errorf("%w: %w", reasonErr(ReasonHeaderMismatch), err)
	}
	if executes[op] && lostReply(err, d, c.classifier()) {
		err = fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	err = explain(err, c.classifier())
	return &Error{Class: class, Op: op, Server: c.def.Name, Tool: tool, Err: err, Diagnosis: d}
}

// executes are the operations whose request may run something at the
// server, so that a lost reply leaves its outcome unknown.
var executes = map[string]bool{OpCallTool: true, OpRead: true, OpGetPrompt: true}

func (c *Client) classifier() transport.Classifier {
	cl, _ := transport.As[transport.Classifier](c.def.Transport)
	return cl
}

// Close ends the session, in this order:
//   - It refuses new calls at once and drops notifications that arrive
//     from then on.
//   - It waits up to Limits.DrainTimeout for in-flight calls to finish,
//     and for the handlers of notifications already queued to run.
//   - It unsubscribes from resources.
//   - It cancels the context of the calls and handlers still running, and
//     drops the notifications still queued.
//   - It closes the transport. A stdio child gets stdin closed first, then
//     the signals, within its grace bounds.
//
// Close returns within DrainTimeout, plus up to a second for unsubscribing
// if there are subscriptions. Add the transport's own close bound or
// HandlerGrace, whichever is longer. This holds whatever the server and
// the handlers do. When it returns, no handler is running, and none will
// start, unless a handler ignores its context. A handler still running
// HandlerGrace after its context was cancelled is abandoned on its
// goroutine, since Go cannot stop it. It runs on until it returns by
// itself, and what it returns is discarded. Close then returns a
// ClassTimeout *Error wrapping ReasonHandlerStuck that names it. The
// connection is closed either way.
//
// A caller may give up on a tools/call before the reply that creates its
// task arrived (see "Long-running tools: tasks" in the package
// documentation). That call is in flight until the reply comes and the
// task it names is cancelled, TaskCancelWait at most for each.
//
// Close may be called more than once and concurrently; every call returns
// when the client is closed, with the same result.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Client) close() error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	deadline := time.Now().Add(c.limits.DrainTimeout)
	queueIdle := c.notes.closeIntake()
	drained := make(chan struct{})
	go func() { c.inflight.Wait(); <-queueIdle; close(drained) }()
	waitUntil(drained, deadline)
	c.unsubscribeAll(deadline)
	c.cancelBase()
	cancelled := time.Now()
	handlersIdle := c.notes.stop()

	// The go-sdk's Close waits until its handlers and in-flight requests
	// are done before it closes the connection; the transport is closed
	// alongside, so that neither a handler nor a request can hold the end.
	sessionDone := make(chan error, 1)
	go func() { sessionDone <- c.session.Close() }()
	connDone := make(chan error, 1)
	if conn := c.Conn(); conn != nil {
		go func() { connDone <- conn.Close() }()
	} else {
		connDone <- nil
	}
	connErr := <-connDone // bounded by the transport
	graceEnd := cancelled.Add(HandlerGrace)
	if now := time.Now(); now.After(graceEnd) {
		graceEnd = now
	}
	callsDone := make(chan struct{})
	go func() { c.inflight.Wait(); close(callsDone) }()
	// Either Close may be the one that closed the connection, and only that
	// one says how it went.
	err := connErr
	select {
	case sessErr := <-sessionDone:
		if err == nil || errors.Is(err, mcp.ErrConnectionClosed) {
			err = sessErr
		}
	case <-time.After(time.Until(graceEnd)):
	}
	waitUntil(handlersIdle, graceEnd)
	waitUntil(callsDone, graceEnd)
	if stuck := c.notes.running(); stuck != "" {
		return &Error{Class: ClassTimeout, Op: OpClose, Server: c.def.Name,
			Err: fmt.Errorf("%w: %s (the connection is closed)", reasonErr(ReasonHandlerStuck), stuck)}
	}
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return c.fail(OpClose, "", err)
	}
	return nil
}

// waitUntil waits until ch is closed or t passes, and reports whether ch was
// closed.
func waitUntil(ch <-chan struct{}, t time.Time) bool {
	select {
	case <-ch:
		return true
	default:
	}
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	}
}

// waitFor waits until ch is closed or d passes.
func waitFor(ch <-chan struct{}, d time.Duration) bool { return waitUntil(ch, time.Now().Add(d)) }

func (c *Client) unsubscribeAll(deadline time.Time) {
	c.mu.Lock()
	uris := slices.Sorted(maps.Keys(c.subs))
	clear(c.subs)
	clear(c.wanted)
	clear(c.listens)
	c.mu.Unlock()
	if len(uris) == 0 {
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(time.Second))
	defer cancel()
	for _, uri := range uris {
		// The session ends next; an unsubscribe the server does not answer
		// in time is moot.
		_ = c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
}

// ListAckWait bounds how long Connect waits, on 2026-07-28, for the server
// to acknowledge the client's subscription to list changes (within
// Limits.ConnectTimeout).
const ListAckWait = 2 * time.Second

// awaitListAck waits for the server to acknowledge the subscriptions/listen
// the go-sdk opened for list changes. It waits on 2026-07-28 only, and when
// the server lists changes of its catalog. It waits before Connect
// discovers. So once Connect returns, a change is announced to the client,
// and the acknowledgement has one place in the session. A server that does
// not acknowledge within ListAckWait is not waited for longer.
func (c *Client) awaitListAck(ctx context.Context, res *mcp.InitializeResult) {
	if res == nil || res.ProtocolVersion < protocol.Revision20260728 || res.Capabilities == nil {
		return
	}
	caps := res.Capabilities
	if !(caps.Tools != nil && caps.Tools.ListChanged || caps.Prompts != nil && caps.Prompts.ListChanged || caps.Resources != nil && caps.Resources.ListChanged) {
		return
	}
	t := time.NewTimer(ListAckWait)
	defer t.Stop()
	select {
	case <-c.listAcked:
	case <-t.C:
	case <-ctx.Done():
	}
}
