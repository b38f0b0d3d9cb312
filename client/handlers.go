package client

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handlers serve what a server asks of the client. A nil field means the
// client does not offer that feature: its capability is not advertised.
//
// Sampling, Elicitation and Roots serve both protocol revisions: on
// 2025-11-25 they answer the server's requests during a call (a request
// with no handler gets a JSON-RPC error); on 2026-07-28 they fulfil an
// input-required result, after which the client sends the continuation (a
// request with no handler fails the call with ErrNoHandler).
//
// Handlers run on the go-sdk's goroutines and may be called concurrently.
type Handlers struct {
	// Sampling answers sampling/createMessage.
	Sampling func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Elicitation answers elicitation/create.
	Elicitation func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Roots are the roots the client offers (roots/list). Nil offers none and
	// does not advertise the roots capability.
	Roots []*mcp.Root
	// Logging receives notifications/message. When it is set and the server
	// offers logging, Connect asks for messages at LogLevel and above.
	Logging func(context.Context, *mcp.LoggingMessageParams)
	// LogLevel is the least severe level Logging receives. Zero means "info".
	LogLevel mcp.LoggingLevel
	// Progress receives notifications/progress. When it is set, every
	// CallTool carries a progress token, unique within the client.
	Progress func(context.Context, *mcp.ProgressNotificationParams)
	// ResourceUpdated receives notifications/resources/updated for the
	// resources subscribed to with Client.Subscribe (on 2026-07-28 they come
	// on a subscriptions/listen stream, on 2025-11-25 after
	// resources/subscribe).
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
		MultiRoundTrip:             &mcp.MultiRoundTripOptions{Disabled: true},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.listChanged("resources") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { c.listChanged("prompts") },
	}
	if h.Sampling != nil {
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return h.Sampling(ctx, r.Params)
		}
	}
	if h.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return h.Elicitation(ctx, r.Params)
		}
	}
	if h.Roots != nil {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	if h.Logging != nil {
		opts.LoggingMessageHandler = func(ctx context.Context, r *mcp.LoggingMessageRequest) { h.Logging(ctx, r.Params) }
	}
	if h.ResourceUpdated != nil {
		opts.ResourceUpdatedHandler = func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			h.ResourceUpdated(ctx, r.Params)
		}
	}
	if h.Progress != nil {
		opts.ProgressNotificationHandler = func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			h.Progress(ctx, r.Params)
		}
	}
	return opts
}
