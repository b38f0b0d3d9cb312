package client

import (
	"context"
	"maps"
	"reflect"
	"strings"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handlers serve what a server asks of the client. A nil field means the
// client does not offer that feature: its capability is not advertised.
//
// Sampling, Elicitation and Roots serve both protocol revisions. On
// 2025-11-25 they answer the server's requests during a call; a request
// with no handler gets a JSON-RPC error. On 2026-07-28 they fulfil an
// input-required result, and the client then sends the continuation; a
// request with no handler fails the call with ErrNoHandler.
//
// Notification handlers (Logging, Progress, ListChanged, CatalogChanged)
// run one at a time on a goroutine of the client's. They come from a queue
// bounded by Limits.MaxQueuedNotifications. Request handlers (Sampling,
// Elicitation) run on the go-sdk's goroutines and may be called
// concurrently. Every handler's context is cancelled when Close's drain
// ends. See Client.Close for what is guaranteed of a handler that ignores
// it.
type Handlers struct {
	// Sampling answers sampling/createMessage.
	Sampling func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) //lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
	// Elicitation answers elicitation/create.
	Elicitation func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Roots are the roots the client offers (roots/list). Nil offers none and
	// does not advertise the roots capability.
	Roots []*mcp.Root //lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
	// Logging receives notifications/message. When it is set, the client
	// asks for messages at LogLevel and above. On 2025-11-25 and earlier it
	// asks with logging/setLevel at Connect, when the server offers
	// logging. 2026-07-28 has no logging/setLevel: there it asks in the
	// _meta of every request it sends (io.modelcontextprotocol/logLevel).
	Logging func(context.Context, *mcp.LoggingMessageParams) //lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
	// LogLevel is the least severe level Logging receives. Zero means "info".
	LogLevel mcp.LoggingLevel //lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
	// Progress receives notifications/progress. When it is set, every
	// CallTool carries a progress token, unique within the client.
	Progress func(context.Context, *mcp.ProgressNotificationParams)
	// ResourceUpdated receives notifications/resources/updated for the
	// resources subscribed to with Client.Subscribe, and for resources
	// within them. On 2026-07-28 they come on a subscriptions/listen
	// stream, on 2025-11-25 after resources/subscribe. An update of
	// anything else, or one that comes after Unsubscribe, is dropped.
	ResourceUpdated func(context.Context, *mcp.ResourceUpdatedNotificationParams)
	// ListChanged is called after the client has re-discovered the catalog
	// because the server said a list changed ("tools", "resources" or
	// "prompts"). It receives the new catalog.
	ListChanged func(what string, cat *Catalog)
	// CatalogChanged is called when the catalog differs from the pinned
	// fingerprint (Definition.Fingerprint), at connect or after a list
	// change. The held tools refuse calls until Client.AcceptCatalog.
	CatalogChanged func(*Drift)
}

// options maps the handlers onto the go-sdk's client options.
func (c *Client) options(h *Handlers) *mcp.ClientOptions {
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		// The client runs multi round-trip requests itself (rounds.go),
		// bounded by Limits.MaxInputRounds; the go-sdk's middleware, whose
		// bounds are fixed, is off.
		MultiRoundTrip:         &mcp.MultiRoundTripOptions{Disabled: true},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { defer c.notes.arrived(); c.listChanged("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			defer c.notes.arrived()
			c.listChanged("resources")
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			defer c.notes.arrived()
			c.listChanged("prompts")
		},
	}
	if h.Sampling != nil {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientOptions.CreateMessageHandler, mcp.CreateMessageResult
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (res *mcp.CreateMessageResult, err error) {
			err = c.notes.request(ctx, "sampling", func(ctx context.Context) error {
				res, err = h.Sampling(ctx, r.Params)
				return err
			})
			return res, err
		}
	}
	if h.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (res *mcp.ElicitResult, err error) {
			err = c.notes.request(ctx, "elicitation", func(ctx context.Context) error {
				res, err = h.Elicitation(ctx, r.Params)
				return err
			})
			return res, err
		}
	}
	if c.def.Skills {
		opts.Capabilities.AddExtension(SkillsExtension, map[string]any{})
	}
	if h.Roots != nil {
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.RootsV2, mcp.RootCapabilities
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	// Notifications are queued for the client's own goroutine (see
	// notifier): the go-sdk's handler returns at once.
	if h.Logging != nil {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientOptions.LoggingMessageHandler
		opts.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) {
			defer c.notes.arrived() // once queued: see notifier.catchUp
			c.notes.post("logging", func(ctx context.Context) { h.Logging(ctx, r.Params) })
		}
	}
	if h.ResourceUpdated != nil {
		opts.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			defer c.notes.arrived()
			// On 2026-07-28 Unsubscribe cancels the subscription's
			// listen stream, which the server ends when it reads the
			// cancellation: an update may still come on it after
			// Unsubscribe returned. It is not the caller's any more.
			if r.Params == nil || !c.wants(r.Params) {
				return
			}
			c.notes.post("resource-updated", func(ctx context.Context) { h.ResourceUpdated(ctx, r.Params) })
		}
	}
	if h.Progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			defer c.notes.arrived()
			c.notes.post("progress", func(ctx context.Context) { h.Progress(ctx, r.Params) })
		}
	}
	return opts
}

// askForLogs asks the server for log messages at level and above (zero
// means "info"), as the negotiated revision allows.
//
//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
func (c *Client) askForLogs(ctx context.Context, level mcp.LoggingLevel) error {
	if level == "" {
		level = "info"
	}
	if c.session.InitializeResult().ProtocolVersion >= protocol.Revision20260728 {
		c.logLevel.Store(&level)
		return nil
	}
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging
	if caps := c.session.InitializeResult().Capabilities; caps == nil || caps.Logging == nil {
		return nil
	}
	//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
	return c.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
}

// logLevelMeta is a sending middleware: once askForLogs has chosen the
// per-request form, every request (not notifications) carries the level
// in its _meta, unless the caller put one there.
func (c *Client) logLevelMeta(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if level := c.logLevel.Load(); level != nil && !strings.HasPrefix(method, "notifications/") {
			if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				meta := maps.Clone(p.GetMeta())
				if meta == nil {
					meta = map[string]any{}
				}
				//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.MetaKeyLogLevel
				if _, ok := meta[mcp.MetaKeyLogLevel]; !ok {
					//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.MetaKeyLogLevel
					meta[mcp.MetaKeyLogLevel] = *level
					p.SetMeta(meta)
				}
			}
		}
		return next(ctx, method, req)
	}
}
