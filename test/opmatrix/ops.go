package opmatrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outcome is result, or err's class (and a JSON-RPC error's message).
func outcome(result string, err error) Outcome {
	if err != nil {
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			return Outcome{Result: rpc.Message, Class: classOf(err)}
		}
		return Outcome{Class: classOf(err)}
	}
	return Outcome{Result: result}
}

// classOf names the class of an error: a *client.Error's class, a
// JSON-RPC error's code, or what ended a go-sdk call.
func classOf(err error) string {
	var ce *client.Error
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &ce):
		s := ce.Class.String()
		if errors.Is(err, client.ErrOutcomeUnknown) {
			s += ", outcome unknown"
		}
		return s
	case errors.As(err, &rpc):
		return fmt.Sprintf("json-rpc %d", rpc.Code)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "connection closed"
	}
	return "other: " + err.Error()
}

// names is the sorted names of items.
func names[T any](items []T, name func(T) string) Outcome {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	slices.Sort(out)
	return Outcome{Result: strings.Join(out, ",")}
}

// listAll pages through a go-sdk list.
func listAll[T any, P any](ctx context.Context, list func(context.Context, P) iter.Seq2[T, error], name func(T) string) Outcome {
	var items []T
	var zero P
	for it, err := range list(ctx, zero) {
		if err != nil {
			return outcome("", err)
		}
		items = append(items, it)
	}
	return names(items, name)
}

// text renders a tool result: its text contents, or, for an
// input-required result (the session's own on 2026-07-28), what it asks.
func text(res *mcp.CallToolResult) string {
	if res.NeedsInput() {
		kinds := make([]string, 0, len(res.InputRequests))
		for k, r := range res.InputRequests {
			kinds = append(kinds, fmt.Sprintf("%s=%T", k, r))
		}
		slices.Sort(kinds)
		return "input required: " + strings.Join(kinds, ",")
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	s := strings.Join(parts, "\n")
	if res.IsError {
		s = "isError: " + s
	}
	return s
}

// call calls tool either way, with a progress token for the session's
// call when token is set.
func (s *session) call(ctx context.Context, cl bool, tool string, args map[string]any, token string) Outcome {
	if cl {
		res, err := s.c.CallTool(ctx, tool, args)
		if res != nil && err != nil {
			return Outcome{Result: text(res), Class: classOf(err)}
		}
		if err != nil {
			return outcome("", err)
		}
		return Outcome{Result: text(res)}
	}
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if token != "" {
		p.SetProgressToken(token)
	}
	res, err := s.cs.CallTool(ctx, p)
	if err != nil {
		return outcome("", err)
	}
	return Outcome{Result: text(res)}
}

// progress calls the progress tool and waits for its last notification:
// the result and the messages, token aside (the client's are its own).
func (s *session) progress(ctx context.Context, cl bool) Outcome {
	s.n.mu.Lock()
	s.n.progress = nil
	s.n.mu.Unlock()
	o := s.call(ctx, cl, "progress", map[string]any{"steps": 3}, "session-progress")
	if o.Class != "" {
		return o
	}
	if err := s.n.await(ctx, func() bool { return len(s.n.progress) >= 3 }); err != nil {
		return Outcome{Result: o.Result, Class: "missing progress"}
	}
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	var msgs []string
	for _, p := range s.n.progress {
		_, m, _ := strings.Cut(p, " ")
		msgs = append(msgs, m)
	}
	return Outcome{Result: o.Result + "; " + strings.Join(msgs, "; ")}
}

// armCancel returns ctx with a cancel the session's handlers can end the
// call with (a progress notification, an elicitation), and what disarms
// it once the call has returned.
func (s *session) armCancel(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.n.mu.Lock()
	s.n.cancel = cancel
	s.n.mu.Unlock()
	return ctx, func() {
		s.n.mu.Lock()
		s.n.cancel = nil
		s.n.mu.Unlock()
		cancel()
	}
}

// cancelled calls the wait tool, which says it started (a progress
// notification) and waits, and cancels the call once it has started.
func (s *session) cancelled(ctx context.Context, cl bool) Outcome {
	ctx, disarm := s.armCancel(ctx)
	defer disarm()
	return s.call(ctx, cl, "wait", map[string]any{}, "session-wait")
}

// taskCancelled calls the hold task, which asks the client for input at
// once: Handlers.Elicitation answers by ending the caller's context, so
// the call is given up while its task runs. It then asks the server for
// the task's state (Client.Task, one tasks/get), which the tasks/cancel
// the client sent as it gave up has made cancelled.
func (s *session) taskCancelled(ctx context.Context) Outcome {
	ctx, disarm := s.armCancel(ctx)
	defer disarm()
	_, err := s.c.CallTool(ctx, "hold", map[string]any{})
	var te *client.TaskError
	if !errors.As(err, &te) {
		return Outcome{Result: "no task named", Class: outcome("", err).Class}
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), opTimeout)
	defer scancel()
	st, serr := s.c.Task(te.ID, "hold").Status(sctx)
	if serr != nil {
		return Outcome{Result: "status: " + outcome("", serr).String(), Class: classOf(err)}
	}
	return Outcome{Result: "then " + string(st.Status), Class: classOf(err)}
}

func (s *session) read(ctx context.Context, cl bool, uri string) Outcome {
	var res *mcp.ReadResourceResult
	var err error
	if cl {
		res, err = s.c.ReadResource(ctx, uri)
	} else {
		res, err = s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	}
	if err != nil {
		return outcome("", err)
	}
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, c.URI+" "+c.MIMEType+" "+c.Text)
	}
	return Outcome{Result: strings.Join(parts, "; ")}
}

func (s *session) prompt(ctx context.Context, cl bool) Outcome {
	var res *mcp.GetPromptResult
	var err error
	if cl {
		res, err = s.c.GetPrompt(ctx, prompt, map[string]string{"topic": "close"})
	} else {
		res, err = s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, Arguments: map[string]string{"topic": "close"}})
	}
	if err != nil {
		return outcome("", err)
	}
	b, _ := json.Marshal(res.Messages)
	return Outcome{Result: res.Description + " " + string(b)}
}

// subscribe subscribes to the readme, has the server say it changed, and
// unsubscribes. Through the client, the update reaches
// Handlers.ResourceUpdated, which it waits for. Through the session,
// which keeps no subscription the client knows of, it subscribes and, on
// 2025-11-25, unsubscribes; on 2026-07-28 the go-sdk's Subscribe returns
// before the server has acknowledged the subscriptions/listen it opens,
// and an Unsubscribe right after races with the acknowledgement (a
// recording would hold it or not): the subscription is ended by Close.
func (s *session) subscribe(ctx context.Context, cl bool) Outcome {
	if !cl {
		if err := s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: readme}); err != nil {
			return outcome("", err)
		}
		if s.rev >= protocol.Revision20260728 {
			return Outcome{Result: "subscribed, until Close"}
		}
		return outcome("subscribed, unsubscribed", s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: readme}))
	}
	s.n.mu.Lock()
	s.n.updates = nil
	s.n.mu.Unlock()
	if err := s.c.Subscribe(ctx, readme); err != nil {
		return outcome("", err)
	}
	if o := s.call(ctx, true, "touch", map[string]any{}, ""); o.Class != "" {
		return o
	}
	if err := s.n.await(ctx, func() bool { return len(s.n.updates) > 0 }); err != nil {
		return Outcome{Class: "missing update"}
	}
	if err := s.c.Unsubscribe(ctx, readme); err != nil {
		return outcome("", err)
	}
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	return Outcome{Result: "updated " + strings.Join(s.n.updates, ",")}
}

// listChanged toggles the tool extra in and out, and waits each time for
// the client to hear of it and re-discover: through the client, its
// Handlers.ListChanged's catalog; through the session, the tools it then
// lists.
func (s *session) listChanged(ctx context.Context, cl bool) Outcome {
	s.n.mu.Lock()
	s.n.lists = nil
	s.n.mu.Unlock()
	var got []string
	for want := range 2 {
		o := s.call(ctx, cl, "toggle", map[string]any{}, "")
		if o.Class != "" {
			return o
		}
		if err := s.n.await(ctx, func() bool { return len(s.n.lists) > want }); err != nil {
			return Outcome{Class: "missing list change"}
		}
		if cl {
			s.n.mu.Lock()
			got = append(got, o.Result+": "+s.n.lists[want])
			s.n.mu.Unlock()
			continue
		}
		l := listAll(ctx, s.cs.Tools, func(t *mcp.Tool) string { return t.Name })
		if l.Class != "" {
			return l
		}
		got = append(got, o.Result+": listed "+l.Result)
	}
	return Outcome{Result: strings.Join(got, "; ")}
}

// logging asks for log messages and has the server send five, one at
// each level from debug to error. Through the client, the level is its
// Handlers.LogLevel (info): logging/setLevel at Connect on 2025-11-25, in
// every request's _meta on 2026-07-28. Through the session, it sets the
// level to warning with logging/setLevel, which 2026-07-28 does not have,
// then sets it back.
func (s *session) logging(ctx context.Context, cl bool) Outcome {
	s.n.mu.Lock()
	s.n.logs = nil
	s.n.mu.Unlock()
	prefix := ""
	if !cl {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
		err := s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"})
		prefix = "setLevel " + outcome("ok", err).String() + "; "
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ClientSession.SetLoggingLevel, mcp.SetLoggingLevelParams
		defer s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"})
	}
	o := s.call(ctx, cl, "log", map[string]any{"count": 5}, "")
	if o.Class != "" {
		return Outcome{Result: prefix, Class: o.Class}
	}
	// The last message, at error, passes every level.
	if err := s.n.await(ctx, func() bool {
		return slices.ContainsFunc(s.n.logs, func(l string) bool { return strings.HasSuffix(l, "message 5 of 5") })
	}); err != nil {
		return Outcome{Result: prefix + o.Result, Class: "missing log message"}
	}
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	return Outcome{Result: prefix + o.Result + "; " + strings.Join(s.n.logs, "; ")}
}
