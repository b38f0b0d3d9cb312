package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Definition names one MCP server and how to reach it.
type Definition struct {
	// Name is the server's name as the harness knows it. Model names of its
	// tools are mcp__<Name>__<tool>. It must not be empty.
	Name string
	// Profile chooses the protocol revision. The zero value, ProfileDefault,
	// negotiates: it offers 2026-07-28 and accepts 2025-11-25 from a server
	// without server/discover. A named profile pins one revision.
	Profile Profile
	// Implementation is how the client introduces itself to the server
	// (clientInfo). Nil means DefaultImplementation().
	Implementation *mcp.Implementation
	// Limits bound discovery and shutdown. Zero fields take the documented
	// defaults.
	Limits Limits
	// Transport makes the connection: stdio.New, streamablehttp.New, sse.New,
	// inprocess.New, or a replaying cassette. It must not be nil.
	Transport transport.Factory
	// Fingerprint, if set, pins the expected catalog fingerprint
	// (Catalog.Fingerprint). When the discovered catalog differs, at connect
	// or after a list_changed notification, the change is reported
	// (Client.Drift, Handlers.CatalogChanged) and the changed tools refuse
	// calls until Client.AcceptCatalog.
	Fingerprint string
	// ToolFingerprints, if set together with Fingerprint, pins each tool's
	// fingerprint (Catalog.ToolFingerprints), so that a changed catalog holds
	// only the tools that changed or appeared. Without it, every tool is held
	// when the catalog fingerprint differs at connect.
	ToolFingerprints map[string]string
	// Disabled lists tool names whose bindings start disabled.
	Disabled []string
	// Tasks, if set, declares the tasks extension
	// (io.modelcontextprotocol/tasks) in the client capabilities of each
	// tools/call that CallTool and CallModel send. This holds on protocol
	// 2026-07-28; other revisions send the go-sdk's own capabilities. So
	// the server may run a tool as a task, which CallTool waits for. When
	// false, no request
	// declares it: a server runs every tool at once, or refuses one that
	// must run as a task (JSON-RPC error -32021, ErrNoHandler).
	// Client.StartTool declares it whatever this says.
	Tasks bool
	// TaskListen, if set with Tasks, lets a task's wait listen for its
	// status on 2026-07-28 over Streamable HTTP: it opens a
	// subscriptions/listen naming the task, and polls at
	// Limits.TaskPollMax once the server agrees, woken by a push. A task
	// of many poll intervals then costs one or two tasks/get. It is off
	// by default: a listen's timing (a push or none, the go-sdk's
	// cancellation of the listen) is not the same twice, so a session
	// recorded through a proxy (mcprig record) would not give the same
	// bytes twice.
	TaskListen bool
	// Skills, if set, declares the skills extension
	// (io.modelcontextprotocol/skills, SEP-2640) in the client
	// capabilities, and lists the skills of a server that offers it
	// (Catalog.Skills), bounded by Limits as the other lists are. Listing
	// fetches no skill file: Client.LoadSkill and Client.ReadSkillFile
	// fetch one each, and verify it first. When false, nothing is declared
	// or listed.
	Skills bool
	// SkillFingerprints, if set together with Fingerprint, pins each
	// skill's fingerprint (Catalog.SkillFingerprints), so that a changed
	// catalog holds only the skills that changed or appeared. Without it,
	// every skill is held when the catalog fingerprint differs at connect.
	SkillFingerprints map[string]string
	// SendingMiddleware wraps the sending of every request and
	// notification to the server (the go-sdk's Client.AddSendingMiddleware),
	// innermost: each sees the message as it is sent, once per send, "_meta"
	// included, and the caller's context. Package otelmcp traces calls
	// with it. Nil means none; a nil entry is a configuration error.
	SendingMiddleware []mcp.Middleware
}

func (d *Definition) validate() error {
	if d.Name == "" {
		return errors.New("client: Definition.Name is empty")
	}
	if d.Transport == nil {
		return fmt.Errorf("client: Definition %q has no Transport", d.Name)
	}
	for i, m := range d.SendingMiddleware {
		if m == nil {
			return fmt.Errorf("client: Definition %q: SendingMiddleware[%d] is nil", d.Name, i)
		}
	}
	if !d.Profile.valid() {
		return fmt.Errorf("client: Definition %q: %w: Profile(%d)", d.Name, reasonErr(ReasonUnknownProfile), int(d.Profile))
	}
	if l := d.Limits.withDefaults(); l.TaskPollMin > l.TaskPollMax {
		return fmt.Errorf("client: Definition %q: Limits.TaskPollMin %v is above TaskPollMax %v", d.Name, l.TaskPollMin, l.TaskPollMax)
	}
	if _, err := d.negotiation(); err != nil {
		return fmt.Errorf("client: Definition %q: %w", d.Name, err)
	}
	return nil
}

// negotiation returns what Connect offers and accepts: the profile's, or,
// for ProfileDefault over a transport that speaks one revision only (legacy
// SSE, a replaying cassette), that revision.
func (d *Definition) negotiation() (offer, error) {
	var pinned string
	if p, ok := transport.As[transport.ProtocolPinner](d.Transport); ok {
		pinned = p.PinnedProtocolVersion()
	}
	pv := d.Profile.ProtocolVersion()
	switch {
	case pinned == "" && d.Profile == ProfileLegacy:
		return offer{}, fmt.Errorf("profile %s (protocol %s) goes with transport/sse only, not %s", d.Profile, pv, d.Transport.Kind())
	case pinned == "":
		return d.Profile.offer(), nil
	case d.Profile == ProfileDefault:
		return offer{version: pinned, accept: []string{pinned}}, nil
	case pinned != pv:
		if r, ok := transport.As[recording](d.Transport); ok {
			if where, _ := r.RecordedRevision(); where != "" {
				return offer{}, fmt.Errorf("%s holds a session at protocol %s only, profile is %s", where, pinned, d.Profile)
			}
		}
		return offer{}, fmt.Errorf("transport %s speaks protocol %s only, profile is %s", d.Transport.Kind(), pinned, d.Profile)
	}
	return d.Profile.offer(), nil
}

// Limits bound what the server controls: discovery sizes and how long the
// client waits. A zero field takes its default.
type Limits struct {
	// MaxPages bounds the pages read from one list (tools, resources,
	// prompts). Zero means 100.
	MaxPages int
	// MaxItems bounds the items read from one list. Zero means 10,000.
	MaxItems int
	// MaxCatalogBytes bounds the encoded size of the whole discovered
	// catalog. Zero means 8 MiB.
	MaxCatalogBytes int
	// ConnectTimeout bounds Connect: handshake and discovery. Zero means 30s.
	ConnectTimeout time.Duration
	// DrainTimeout bounds how long Close waits for in-flight calls and
	// subscriptions to finish before it cancels them. Zero means 5s.
	DrainTimeout time.Duration
	// MaxQueuedNotifications bounds the notifications (logging, progress, resource updates)
	// received and not yet handled: the handlers run one at a time, and a
	// server can send faster than they return. Past the bound a
	// notification is dropped and counted (Client.DroppedNotifications);
	// the session goes on. List changes are not counted against it and
	// never dropped: one pending change per list stands for any number.
	// Zero means 1,024.
	MaxQueuedNotifications int
	// CallTimeout bounds one request after Connect (a tool call, a read, a
	// prompt), on top of the caller's context. A server that never answers
	// fails the call with ClassTimeout, and the go-sdk tells the server the
	// request was cancelled. It covers every round of a multi round-trip
	// request, handlers included. Zero means 5 minutes; negative means no
	// bound but the caller's context.
	CallTimeout time.Duration
	// MaxInputRounds bounds the continuations of one tools/call,
	// prompts/get or resources/read that the server answers "input
	// required" (protocol 2026-07-28). A server may still need input, or
	// still shed load, after that many continuations. The request then
	// fails with ReasonInputRounds. Zero means 10, the go-sdk's own bound; negative
	// means none: an input-required result fails at once.
	MaxInputRounds int
	// MaxTaskPolls bounds the tasks/get requests one wait for a task sends
	// (CallTool, Task.Wait): a task still running after that many polls
	// fails the wait with ReasonTaskPolls. Zero means 10,000.
	MaxTaskPolls int
	// TaskPollMin and TaskPollMax bound the time between two polls of a
	// task. The server's hint (pollIntervalMs) is raised to TaskPollMin
	// and lowered to TaskPollMax. A server that gives none is polled every
	// second within them. Zero means 100ms and 10s.
	TaskPollMin, TaskPollMax time.Duration
	// TaskTimeout bounds how long one wait for a task takes, from its
	// start: a wait that would poll past it fails with ErrTaskTimeout
	// (ClassTimeout) instead. It takes the place of CallTimeout for a tool
	// call the server runs as a task; CallTimeout still bounds each
	// request. Zero means 1 hour; negative means no bound but the
	// caller's context.
	TaskTimeout time.Duration
}

// Defaults for Limits' zero fields.
const (
	DefaultMaxPages        = 100
	DefaultMaxItems        = 10_000
	DefaultMaxCatalogBytes = 8 << 20
	DefaultConnectTimeout  = 30 * time.Second
	DefaultDrainTimeout    = 5 * time.Second
	DefaultCallTimeout     = 5 * time.Minute
	DefaultMaxInputRounds  = 10
	DefaultMaxTaskPolls    = 10_000
	DefaultTaskPollMin     = 100 * time.Millisecond
	DefaultTaskPollMax     = 10 * time.Second
	DefaultTaskTimeout     = time.Hour
	// DefaultTaskPoll is the time between polls of a task whose server
	// gives no hint, within TaskPollMin and TaskPollMax.
	DefaultTaskPoll = time.Second

	DefaultMaxQueuedNotifications = 1024
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	if l.MaxCatalogBytes <= 0 {
		l.MaxCatalogBytes = DefaultMaxCatalogBytes
	}
	if l.ConnectTimeout <= 0 {
		l.ConnectTimeout = DefaultConnectTimeout
	}
	if l.DrainTimeout <= 0 {
		l.DrainTimeout = DefaultDrainTimeout
	}
	if l.MaxQueuedNotifications <= 0 {
		l.MaxQueuedNotifications = DefaultMaxQueuedNotifications
	}
	if l.CallTimeout == 0 {
		l.CallTimeout = DefaultCallTimeout
	}
	switch {
	case l.MaxInputRounds == 0:
		l.MaxInputRounds = DefaultMaxInputRounds
	case l.MaxInputRounds < 0:
		l.MaxInputRounds = 0
	}
	if l.MaxTaskPolls <= 0 {
		l.MaxTaskPolls = DefaultMaxTaskPolls
	}
	if l.TaskPollMin <= 0 {
		l.TaskPollMin = DefaultTaskPollMin
	}
	if l.TaskPollMax <= 0 {
		l.TaskPollMax = DefaultTaskPollMax
	}
	if l.TaskTimeout == 0 {
		l.TaskTimeout = DefaultTaskTimeout
	}
	return l
}

// taskInterval is the time to wait before the next poll of a task whose
// server hinted hint (zero: no hint). l has its defaults.
func (l Limits) taskInterval(hint time.Duration) time.Duration {
	if hint <= 0 {
		hint = DefaultTaskPoll
	}
	return min(max(hint, l.TaskPollMin), l.TaskPollMax)
}

// requestTimeout bounds one request of a task's wait: CallTimeout, or an
// hour when CallTimeout is negative (the wait's own bounds apply too).
func (l Limits) requestTimeout() time.Duration {
	if l.CallTimeout > 0 {
		return l.CallTimeout
	}
	return time.Hour
}
