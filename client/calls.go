package client

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTool calls the named tool once. It is never retried, whatever fails:
// a caller that retries risks running the tool twice.
//
// The server may answer that it needs input (protocol 2026-07-28: an
// input-required result). CallTool then fulfils it through the Handlers
// and sends the continuation the server asked for. It does so at most
// Limits.MaxInputRounds times. That continuation is the only tools/call
// ever sent again. A continuation whose reply is lost is not sent again
// either (ErrOutcomeUnknown). A request for input that no handler serves
// fails at once with ErrNoHandler, before any handler runs.
//
// A call is refused without reaching the server when the tool is unknown
// (ErrUnknownTool), its binding is disabled (ReasonDisabled) or it is held
// against the pinned fingerprint (ErrHeld); each is a ClassPolicy *Error.
//
// When the tool ran and reported failure (IsError), CallTool returns the
// result and a ClassTool *Error wrapping a *ToolError, so the content can
// still be shown to a model.
//
// With Definition.Tasks set, the call declares the tasks extension
// (protocol 2026-07-28), and a server may run the tool as a task. CallTool
// then waits for the task's outcome as Task.Wait does. The wait is bounded
// by Limits.MaxTaskPolls, TaskPollMin, TaskPollMax and TaskTimeout, not by
// CallTimeout, which bounds each request. CallTool cancels the task
// (tasks/cancel) when it gives up: ctx ends, the client closes, or a bound
// is passed. Its errors then hold a *TaskError naming the task.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	base, err := c.beginCall(name)
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	callCtx, cancel := c.bound(ctx, base)
	defer cancel()
	var t Task
	err = c.start(callCtx, &t, name, args, c.def.Tasks)
	c.notes.catchUp(callCtx)
	if err != nil {
		return nil, c.fail(OpCallTool, name, err)
	}
	res, err := t.await(ctx, base)
	if err != nil {
		err = t.fail(err)
		t.giveUp(ctx, err)
		return nil, err
	}
	if t.id != "" {
		c.notes.catchUp(ctx)
	}
	return t.outcome(res, nil)
}

// CallModel calls the tool whose binding has the given model name, as a
// harness does when a model asks for it. See CallTool.
func (c *Client) CallModel(ctx context.Context, modelName string, args any) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	tool, ok := c.tools[modelName]
	c.mu.Unlock()
	if !ok {
		return nil, &Error{Class: ClassPolicy, Op: OpCallTool, Server: c.def.Name, Tool: modelName,
			Err: fmt.Errorf("%w: no binding has model name %q", ErrUnknownTool, modelName)}
	}
	return c.CallTool(ctx, tool, args)
}

// beginCall registers an in-flight call of tool, refused (a ClassPolicy
// *Error, nothing registered) when the tool is not callable.
func (c *Client) beginCall(tool string) (context.Context, error) {
	base, err := c.begin(OpCallTool, tool)
	if err != nil {
		return nil, err
	}
	if err := c.callable(tool); err != nil {
		c.inflight.Done()
		return nil, &Error{Class: ClassPolicy, Op: OpCallTool, Server: c.def.Name, Tool: tool, Err: err}
	}
	return base, nil
}

func (c *Client) callable(tool string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.catalog.Tool(tool) == nil:
		return fmt.Errorf("%w: %q is not in the catalog of %s", ErrUnknownTool, tool, c.def.Name)
	case c.disabled[tool]:
		return fmt.Errorf("%w: %s", reasonErr(ReasonDisabled), c.models[tool])
	case c.held[tool]:
		return fmt.Errorf("%w: %s", ErrHeld, tool)
	}
	return nil
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ReadResource reads one resource. Input the server asks for is fulfilled
// as CallTool's is.
func (c *Client) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	base, err := c.begin(OpRead, "")
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	res, err := rounds(ctx, c, &mcp.ReadResourceParams{URI: uri}, c.session.ReadResource, readInput, readNext)
	c.notes.catchUp(ctx)
	if err != nil {
		return nil, c.fail(OpRead, "", err)
	}
	return res, nil
}

// GetPrompt renders one prompt. Input the server asks for is fulfilled as
// CallTool's is.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	base, err := c.begin(OpGetPrompt, "")
	if err != nil {
		return nil, err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	res, err := rounds(ctx, c, &mcp.GetPromptParams{Name: name, Arguments: args}, c.session.GetPrompt, promptInput, promptNext)
	c.notes.catchUp(ctx)
	if err != nil {
		return nil, c.fail(OpGetPrompt, "", err)
	}
	return res, nil
}

// Subscribe asks the server for notifications/resources/updated about uri,
// which Handlers.ResourceUpdated receives. On 2025-11-25 it sends
// resources/subscribe; on 2026-07-28 it opens a subscriptions/listen
// stream for uri (one per URI, each holding one of the transport's
// concurrent streams) and returns once the server has acknowledged it. A
// URI already subscribed to is not subscribed again. Close unsubscribes
// before it ends the session.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	base, err := c.begin(OpSubscribe, "")
	if err != nil {
		return err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	c.mu.Lock()
	already := c.subs[uri]
	c.wanted[uri] = true
	c.mu.Unlock()
	if already {
		return nil
	}
	subscribed := false
	defer func() {
		if !subscribed {
			c.mu.Lock()
			if !c.subs[uri] {
				delete(c.wanted, uri)
				c.endListen(uri)
			}
			c.mu.Unlock()
		}
	}()
	var acked chan struct{}
	if c.ProtocolVersion() >= protocol.Revision20260728 {
		acked = c.awaitAck(uri)
		defer c.dropAck(uri, acked)
	}
	if err := c.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return c.fail(OpSubscribe, "", err)
	}
	if acked != nil {
		select {
		case <-acked:
		case <-ctx.Done():
			_ = c.session.Unsubscribe(context.WithoutCancel(ctx), &mcp.UnsubscribeParams{URI: uri})
			return c.fail(OpSubscribe, "", fmt.Errorf("subscriptions/listen for %s not acknowledged: %w", uri, ctx.Err()))
		}
	}
	c.mu.Lock()
	c.subs[uri] = true
	c.mu.Unlock()
	subscribed = true
	return nil
}

// wants reports whether an update of uri is for a subscription the caller
// holds: of uri itself or of a resource uri is within (the server may name
// the sub-resource that changed). On 2026-07-28 the update names the
// subscriptions/listen stream it came on (_meta subscriptionId). An update
// from a stream that Unsubscribe ended is not the caller's. That holds even
// for one the client handles after subscribing to the URI again.
func (c *Client) wants(p *mcp.ResourceUpdatedNotificationParams) bool {
	id, hasID := p.Meta[mcp.MetaKeySubscriptionID]
	c.mu.Lock()
	defer c.mu.Unlock()
	for w := range c.wanted {
		if p.URI != w && !strings.HasPrefix(p.URI, w) {
			continue
		}
		live, acked := c.listens[w]
		switch {
		case !hasID, acked && live == fmt.Sprint(id):
			return true
		case !acked && !slices.Contains(c.ended, fmt.Sprint(id)):
			// Subscribed again, not acknowledged yet: an update from
			// any stream but one Unsubscribe ended.
			return true
		}
	}
	return false
}

// maxEnded is how many ended subscriptions/listen streams the client
// remembers, so as to refuse their late updates.
const maxEnded = 64

// endListen forgets uri's listen stream, remembering that it ended. c.mu
// is held.
func (c *Client) endListen(uri string) {
	if id, ok := c.listens[uri]; ok {
		if len(c.ended) == maxEnded {
			c.ended = slices.Delete(c.ended, 0, 1)
		}
		c.ended = append(c.ended, id)
	}
	delete(c.listens, uri)
}

// awaitAck registers a wait for the server's acknowledgement of a
// subscription to uri.
func (c *Client) awaitAck(uri string) chan struct{} {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.acks == nil {
		c.acks = map[string][]chan struct{}{}
	}
	c.acks[uri] = append(c.acks[uri], ch)
	return ch
}

func (c *Client) dropAck(uri string, ch chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acks[uri] = slices.DeleteFunc(c.acks[uri], func(x chan struct{}) bool { return x == ch })
	if len(c.acks[uri]) == 0 {
		delete(c.acks, uri)
	}
}

// watchAcks is receiving middleware that releases the Subscribe calls whose
// URIs a notifications/subscriptions/acknowledged lists.
func (c *Client) watchAcks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && method == "notifications/subscriptions/acknowledged" {
			if n := p.Notifications; n.ToolsListChanged || n.PromptsListChanged || n.ResourcesListChanged {
				c.listAckOnce.Do(func() { close(c.listAcked) })
			}
			c.mu.Lock()
			for _, uri := range p.Notifications.ResourceSubscriptions {
				if id, ok := p.Meta[mcp.MetaKeySubscriptionID]; ok && c.wanted[uri] {
					c.listens[uri] = fmt.Sprint(id)
				}
				for _, ch := range c.acks[uri] {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			}
			c.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// Unsubscribe ends a subscription made with Subscribe. Once it returns, no
// update of uri reaches Handlers.ResourceUpdated, including one the server
// sent before it read the unsubscription (on 2026-07-28, where Unsubscribe
// cancels the subscription's listen stream rather than waiting for it).
//
// A go-sdk v1.8.0 server on a connection that persists (in-process, stdio)
// has a flaw. When any of its listen streams ends, it drops all of the
// session's list-change subscriptions. So on 2026-07-28,
// Handlers.ListChanged hears nothing more from such a server after an
// Unsubscribe. This is fixed upstream in go-sdk pull request 1275. Over
// Streamable HTTP each request is a session of its own, and this does not
// happen.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	base, err := c.begin(OpUnsubscribe, "")
	if err != nil {
		return err
	}
	defer c.inflight.Done()
	ctx, cancel := c.bound(ctx, base)
	defer cancel()
	c.mu.Lock()
	delete(c.subs, uri)
	delete(c.wanted, uri)
	c.endListen(uri)
	c.mu.Unlock()
	if err := c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return c.fail(OpUnsubscribe, "", err)
	}
	return nil
}
