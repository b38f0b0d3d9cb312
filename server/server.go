package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Default bounds, used when the corresponding [Options] field is zero.
const (
	// DefaultMaxInputBytes bounds the encoded arguments of one tool call
	// (and the total size of one prompt's arguments): 1 MiB.
	DefaultMaxInputBytes = 1 << 20
	// DefaultMaxResultBytes bounds the encoded result of one tool call,
	// resource read or prompt: 4 MiB.
	DefaultMaxResultBytes = 4 << 20
)

// A CallError is a failure of a tool call, resource read or prompt that
// the server found, not its handler. Reason says which. The caller sees its
// text, which starts with the reason ("invalid input: …"). It comes as an
// isError tool result, or as a JSON-RPC error. The server's Logger
// receives the error itself, where errors.As finds it.
type CallError struct {
	Reason CallReason // why
	Err    error      // the details, after the reason in the text
}

func (e *CallError) Error() string { return e.Reason.String() + ": " + e.Err.Error() }

// Unwrap returns the details.
func (e *CallError) Unwrap() error { return e.Err }

// CallReason says why the server failed a call (CallError.Reason).
type CallReason int

const (
	// CallInvalidInput is a tool's arguments that are not a JSON object
	// satisfying its input schema, or a prompt missing a required argument.
	CallInvalidInput CallReason = iota + 1
	// CallInputTooLarge is a tool call's encoded arguments (or a prompt's
	// arguments) over Options.MaxInputBytes.
	CallInputTooLarge
	// CallResultTooLarge is the encoded result of a tool call, resource
	// read or prompt over Options.MaxResultBytes.
	CallResultTooLarge
	// CallPanic is a handler that panicked. The panic value is in the
	// text; the stack goes to the server's Logger only.
	CallPanic
	// CallTooManyRounds is a handler that asked for input more often in one
	// call than Options.MaxInputRounds allows.
	CallTooManyRounds
	// CallInputUnavailable is a handler that asked for input the client
	// cannot be asked for. A 2025-11-25 (or older) client answers only
	// server-to-client requests, which need a session. Stateless HTTP
	// serving (HTTPOptions.Stateless) has none.
	CallInputUnavailable
)

var callReasons = [...]string{
	CallInvalidInput:     "invalid input",
	CallInputTooLarge:    "input too large",
	CallResultTooLarge:   "result too large",
	CallPanic:            "handler panicked",
	CallTooManyRounds:    "too many input rounds",
	CallInputUnavailable: "input from the client unavailable",
}

// String returns the reason as the error's text starts: "invalid input", …
func (r CallReason) String() string {
	if r > 0 && int(r) < len(callReasons) {
		return callReasons[r]
	}
	return "call failed"
}

// callError returns a *CallError for r whose details format makes.
func callError(r CallReason, format string, args ...any) error {
	return &CallError{Reason: r, Err: fmt.Errorf(format, args...)}
}

// isCall reports whether err is a *CallError for r.
func isCall(err error, r CallReason) bool {
	ce, ok := errors.AsType[*CallError](err)
	return ok && ce.Reason == r
}

// Errors returned by registration: they are programmer errors.
var (
	// ErrDuplicate is returned when a tool or prompt name, or a resource
	// URI, is registered twice.
	ErrDuplicate = errors.New("already registered")
	// ErrInvalidDefinition is returned when a tool, resource or prompt
	// definition is unusable: an empty or malformed name, a missing or
	// invalid schema, a relative resource URI, a nil handler.
	ErrInvalidDefinition = errors.New("invalid definition")
)

// ErrInvalidOptions is matched (errors.Is) by every *OptionsError: it is
// returned when [New], [Server.HTTPHandler] or [Server.SSEHandler] is given
// a name or option it cannot use.
var ErrInvalidOptions = errors.New("server: invalid options")

// An OptionsError reports an argument or option a constructor cannot use.
// It matches [ErrInvalidOptions] and unwraps to the reason; Option names
// the option (an AllowedOrigins entry that is not an origin: "AllowedOrigins[i]").
type OptionsError struct {
	Func   string // the function: "New", "HTTPHandler", "SSEHandler"
	Option string // what is wrong: "name", "PageSize", "StateKey", "AllowedOrigins[1]"
	Value  string // the offending value, quoted in the message; "" when there is none
	Err    error  // why
}

func (e *OptionsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server.%s: %s", e.Func, e.Option)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the reason.
func (e *OptionsError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidOptions.
func (e *OptionsError) Is(target error) bool { return target == ErrInvalidOptions }

// Options configures a [Server]. The zero value (or a nil *Options) gives
// the documented defaults.
type Options struct {
	// MaxInputBytes bounds the encoded arguments of one tool call and the
	// total size of one prompt's argument names and values.
	// If zero, defaults to [DefaultMaxInputBytes]; negative means no bound.
	MaxInputBytes int
	// MaxResultBytes bounds the encoded result of one tool call, resource
	// read or prompt.
	// If zero, defaults to [DefaultMaxResultBytes]; negative means no bound.
	MaxResultBytes int
	// Instructions are sent to clients in the initialize result.
	// If empty, none are sent.
	Instructions string
	// Logger receives the server's diagnostics: every tool failure (with the
	// stack of a panic) and the go-sdk's session events.
	// If nil, nothing is logged.
	Logger *slog.Logger
	// PageSize is the number of items in one page of tools/list,
	// resources/list and prompts/list.
	// If zero, defaults to the go-sdk's mcp.DefaultPageSize.
	PageSize int
	// KeepAlive, if non-zero, pings each client at this interval and ends
	// the session when a ping fails. If zero, no pings are sent.
	KeepAlive time.Duration
	// SessionID returns the id of each new HTTP session. If nil, the go-sdk
	// draws a random id. A fake server sets it to make sessions
	// reproducible; a real server must leave it nil.
	SessionID func() string
	// Completion answers completion/complete (argument suggestions for
	// prompts and resource templates). If nil, the completions capability
	// is not advertised and the request fails with method not found.
	Completion func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	// Subscriptions lets clients subscribe to registered resources
	// (resources/subscribe); Server.ResourceUpdated then notifies the
	// subscribers of a resource. A subscription to a URI that is not
	// registered fails with invalid params. If false, the capability is not
	// advertised.
	Subscriptions bool
	// MaxInputRounds bounds how many times one call's handler may ask for
	// input (an input-required result; see ElicitResponse); the next time,
	// the call fails with CallTooManyRounds. The count travels in the sealed
	// requestState, so it holds on stateless serving too.
	// If zero, defaults to [DefaultMaxInputRounds]; negative means no bound.
	MaxInputRounds int
	// StateKey is the HMAC-SHA256 key that seals the requestState of
	// input-required results. A client may alter a state, or move it to
	// another tool, prompt, resource or arguments. The continuation is then
	// refused before the handler runs. It must be at least 32 bytes. Servers
	// that share continuations (replicas behind a load balancer, stateless
	// serving across restarts) must share the key; keep it secret.
	// If nil, New draws a random key: continuations then hold only within
	// this Server. A fake server sets a fixed key to make its output
	// reproducible.
	StateKey []byte
	// StateTTL bounds how long after an input-required result its
	// continuation is accepted: later, the continuation is refused with
	// invalid params (-32602) before the handler runs. The issue time
	// travels in the sealed state, so the bound holds across replicas
	// (whose clocks should agree to within a small part of it). If zero,
	// defaults to [DefaultStateTTL]; negative means no time bound, and the
	// state carries no time (a fake server sets it so, to make its output
	// reproducible).
	StateTTL time.Duration
	// StateStore remembers the sealed states that were used, so that each
	// is accepted once: a continuation whose state was used before (a
	// replay) is refused with invalid params (-32602) before the handler
	// runs. If nil, New makes one for this Server alone,
	// NewMemoryStateStore(0). Servers that share StateKey must share a
	// store to refuse a replay at another one: see [StateStore].
	StateStore StateStore
	// Cache decides the caching hints (ttlMs, cacheScope) of the results that
	// carry them on 2026-07-28: server/discover, tools/list, prompts/list,
	// resources/list, resources/templates/list and resources/read. It is
	// called once per such result, after its handler, with c holding the
	// handler's values (a resource handler may set ReadResourceResult's
	// TTLMs and CacheScope itself). If nil, results carry ttlMs 0 (stale at
	// once) and cacheScope "public", unless a resource handler set them.
	// Mark results that differ between users (per-user tool lists, private
	// resources) "private".
	Cache func(ctx context.Context, req mcp.Request, c *mcp.Cacheable)
	// Tasks, if set, offers the tasks extension (SEP-2663): server/discover
	// advertises it, tasks/get, tasks/update and tasks/cancel are answered
	// over HTTPHandler and ServeStdio, and tools registered with RegisterTaskTool run as
	// tasks. A zero TaskOptions gives its documented defaults. If nil, the
	// extension is not offered, tasks/* methods are not found (-32601), and
	// RegisterTaskTool fails.
	Tasks *TaskOptions
	// Skills, if set, offers the skills extension (SEP-2640): server/discover
	// declares it, skills/list and skills/get are answered, each skill file
	// is a resource, and resources/directory/read is answered if
	// Skills.DirectoryRead. New returns an *OptionsError for a skill that
	// breaks a rule of the extension. If nil, the extension is not offered.
	Skills *SkillOptions
}

// Server is the publisher registry: the tools, resources and prompts one
// server offers, and the bounds it enforces on them. It wraps a go-sdk
// mcp.Server, which speaks the protocol.
//
// A Server may serve many sessions at once, over any transports. Methods
// are safe for concurrent use; registering while sessions are connected
// sends them the list-changed notification.
type Server struct {
	mcp            *mcp.Server
	logger         *slog.Logger
	maxInputBytes  int
	maxResultBytes int
	maxRounds      int           // -1: no bound
	stateKey       []byte        // seals requestState
	stateTTL       time.Duration // -1: no bound
	states         StateStore    // the states used
	serial         atomic.Uint64 // the states sealed

	// mu guards the registered names and the tools' mirrored arguments.
	mu        sync.Mutex
	tools     map[string]bool
	resources map[string]bool
	prompts   map[string]bool
	headers   map[string][]paramHeader // by tool name
	taskTools map[string]*taskTool     // the tools that run as tasks, by name

	tasks *tasks // nil: the tasks extension is not offered
}

// New returns a Server named name at version, with no tools, resources or
// prompts. A nil opts means defaults. It returns an *OptionsError (matching
// [ErrInvalidOptions]) if name is empty or an option is invalid: a
// negative PageSize, a StateKey shorter than 32 bytes, a negative
// Tasks.TTL.
func New(name, version string, opts *Options) (*Server, error) {
	if name == "" {
		return nil, &OptionsError{Func: "New", Option: "name", Err: errors.New("empty")}
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PageSize < 0 {
		return nil, &OptionsError{Func: "New", Option: "PageSize", Value: strconv.Itoa(o.PageSize), Err: errors.New("negative")}
	}
	key := o.StateKey
	switch {
	case key == nil:
		key = make([]byte, 32)
		rand.Read(key) // never fails (crypto/rand)
	case len(key) < 32:
		return nil, &OptionsError{Func: "New", Option: "StateKey", Err: fmt.Errorf("%d bytes; it must have at least 32", len(key))}
	default:
		key = bytes.Clone(key)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		logger:         logger,
		maxInputBytes:  bound(o.MaxInputBytes, DefaultMaxInputBytes),
		maxResultBytes: bound(o.MaxResultBytes, DefaultMaxResultBytes),
		maxRounds:      bound(o.MaxInputRounds, DefaultMaxInputRounds),
		stateKey:       key,
		stateTTL:       time.Duration(bound64(int64(o.StateTTL), int64(DefaultStateTTL))),
		states:         o.StateStore,
		tools:          make(map[string]bool),
		resources:      make(map[string]bool),
		prompts:        make(map[string]bool),
		headers:        make(map[string][]paramHeader),
		taskTools:      make(map[string]*taskTool),
	}
	mo := &mcp.ServerOptions{
		Instructions:      o.Instructions,
		Logger:            logger,
		PageSize:          o.PageSize,
		KeepAlive:         o.KeepAlive,
		GetSessionID:      o.SessionID,
		CompletionHandler: completion(o.Completion),
		SetCacheable:      o.Cache,
	}
	if o.Subscriptions {
		mo.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
			return s.checkSubscription(req.Params.URI)
		}
		mo.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	if s.states == nil {
		s.states = NewMemoryStateStore(0)
	}
	if o.Tasks != nil {
		var err error
		if s.tasks, err = newTasks(o.Tasks); err != nil {
			return nil, err
		}
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
		mo.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}} // the go-sdk's default, with the extension
		mo.Capabilities.AddExtension(TasksExtension, map[string]any{})
	}
	var sk *skills
	if o.Skills != nil {
		var err error
		if sk, err = newSkills(o.Skills); err != nil {
			return nil, err
		}
		if mo.Capabilities == nil {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
			mo.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}} // the go-sdk's default, with the extension
		}
		mo.Capabilities.AddExtension(SkillsExtension, sk.capability())
		if mo.Capabilities.Resources == nil { // skill files are read through resources/read
			mo.Capabilities.Resources = &mcp.ResourceCapabilities{ListChanged: true}
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, mo)
	s.mcp.AddReceivingMiddleware(s.roundsForOlderClients)
	if sk != nil {
		if err := sk.publish(s); err != nil {
			return nil, &OptionsError{Func: "New", Option: "Skills", Err: err}
		}
	}
	return s, nil
}

// completion gives the errors of h valid JSON-RPC codes (rpcError).
func completion(h func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		res, err := h(ctx, req)
		return res, rpcError(err)
	}
}

// checkSubscription refuses a subscription to a resource that is not
// registered.
func (s *Server) checkSubscription(uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.resources[uri] {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no resource %q to subscribe to", uri)}
	}
	return nil
}

// ResourceUpdated notifies the sessions subscribed to uri that the resource
// changed (Options.Subscriptions).
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	return s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
}

// bound returns v, def when v is zero, or -1 (no bound) when v is negative.
func bound(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// exceeds reports whether n bytes are over limit (-1: no limit).
func exceeds(n, limit int) bool { return limit >= 0 && n > limit }

// MCP returns the go-sdk server underneath, for what this package does not
// wrap (resource templates, completion, middleware). Tools added directly
// to it bypass this package's validation and bounds.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// MaxInputBytes returns the input bound in force (-1: none).
func (s *Server) MaxInputBytes() int { return s.maxInputBytes }

// MaxResultBytes returns the result bound in force (-1: none).
func (s *Server) MaxResultBytes() int { return s.maxResultBytes }

// claim records name in set, or returns ErrDuplicate.
func (s *Server) claim(set map[string]bool, kind, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set[name] {
		return fmt.Errorf("server: %s %q: %w", kind, name, ErrDuplicate)
	}
	set[name] = true
	return nil
}

// release forgets name, so that it may be registered again.
func (s *Server) release(set map[string]bool, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := set[name]
	delete(set, name)
	return ok
}
