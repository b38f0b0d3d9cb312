package client

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the client side of multi round-trip requests (protocol
// 2026-07-28, SEP-2322). A tools/call, prompts/get or resources/read may be
// answered "input required": the server needs the client to sample, elicit
// or list roots first. The client fulfils every request through the same
// Handlers that answer a 2025-11-25 server's requests during a call, and
// sends the continuation: the same request with a new JSON-RPC id, the
// answers (inputResponses) and the server's opaque requestState echoed back.
// An input-required result with no requests is load shedding: the
// continuation carries no answers. Either way it is one round, and the
// rounds of one request are bounded by Limits.MaxInputRounds.
//
// The go-sdk's own middleware does the same with bounds fixed in its code
// (10 rounds, 3 of load shedding); the client disables it and runs this
// loop, so that the bound is the documented Limits field, a request for
// input with no handler fails before any handler runs, and every round is
// sent through the same session calls as the first request.

// pending is what an input-required result asks for.
type pending struct {
	requests mcp.InputRequestMap
	state    string
}

// rounds sends p with send and, while the result needs input, fulfils it and
// sends the continuation made by next. It returns the complete result.
func rounds[P any, R any](ctx context.Context, c *Client, p P, send func(context.Context, P) (R, error),
	needs func(R) *pending, next func(P, mcp.InputResponseMap, string) P) (R, error) {
	res, err := send(ctx, p)
	for n := 0; err == nil; n++ {
		in := needs(res)
		if in == nil {
			return res, nil
		}
		if n == c.limits.MaxInputRounds {
			var zero R
			return zero, fmt.Errorf("%w: the server asked for input again after %d rounds", reasonErr(ReasonInputRounds), n)
		}
		answers, ferr := c.fulfil(ctx, in.requests)
		if ferr != nil {
			var zero R
			return zero, ferr
		}
		p = next(p, answers, in.state)
		res, err = send(ctx, p)
	}
	return res, err
}

// fulfil answers every input request through the handlers, in the order of
// their ids. A request no handler serves fails the whole set before any
// handler runs. A handler that fails once ctx has ended fails the set with
// ctx's error (the caller gave up), not ReasonHandler.
func (c *Client) fulfil(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	h := &c.handlers
	ids := slices.Sorted(maps.Keys(reqs))
	for _, id := range ids {
		var missing string
		switch reqs[id].(type) {
		case *mcp.ElicitParams:
			if h.Elicitation == nil {
				missing = "elicitation (Handlers.Elicitation)"
			}
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageWithToolsParams
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			if h.Sampling == nil {
				missing = "sampling (Handlers.Sampling)"
			}
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		case *mcp.ListRootsParams:
			if h.Roots == nil {
				missing = "roots (Handlers.Roots)"
			}
		default:
			return nil, fmt.Errorf("%w: input request %q of type %T", reasonErr(ReasonInvalidInputRequest), id, reqs[id])
		}
		if missing != "" {
			return nil, fmt.Errorf("%w: the server asked for %s in input request %q", ErrNoHandler, missing, id)
		}
	}
	answers := make(mcp.InputResponseMap, len(reqs))
	for _, id := range ids {
		a, err := c.answer(ctx, reqs[id])
		if err != nil && ctx.Err() != nil {
			// The caller gave up while the handler answered: the call ends
			// as given up, whatever the handler made of it.
			return nil, fmt.Errorf("input request %q: %w (the handler: %v)", id, ctx.Err(), err)
		}
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", id, err)
		}
		answers[id] = a
	}
	return answers, nil
}

// answer runs the handler for one input request.
func (c *Client) answer(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	h := &c.handlers
	switch p := req.(type) {
	case *mcp.ElicitParams:
		res, err := h.Elicitation(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%w: elicitation: %w", reasonErr(ReasonHandler), err)
		}
		if res == nil {
			return nil, fmt.Errorf("%w: elicitation returned no result", reasonErr(ReasonHandler))
		}
		if err := checkElicited(p, res); err != nil {
			return nil, err
		}
		return res, nil
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsParams
	case *mcp.CreateMessageWithToolsParams:
		base, err := baseSampling(p)
		if err != nil {
			return nil, err
		}
		return c.sample(ctx, base)
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
	case *mcp.CreateMessageParams:
		return c.sample(ctx, p)
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
	case *mcp.ListRootsParams:
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsResult
		return &mcp.ListRootsResult{Roots: slices.Clone(h.Roots)}, nil
	}
	return nil, fmt.Errorf("%w: %T", reasonErr(ReasonInvalidInputRequest), req)
}

//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
func (c *Client) sample(ctx context.Context, p *mcp.CreateMessageParams) (mcp.InputResponse, error) {
	res, err := c.handlers.Sampling(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("%w: sampling: %w", reasonErr(ReasonHandler), err)
	}
	if res == nil {
		return nil, fmt.Errorf("%w: sampling returned no result", reasonErr(ReasonHandler))
	}
	return res, nil
}

// baseSampling turns the go-sdk's decoding of a sampling request into what
// Handlers.Sampling takes: one content block per message.
//
//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsParams, mcp.CreateMessageParams
func baseSampling(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, error) {
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
	msgs := make([]*mcp.SamplingMessage, 0, len(p.Messages))
	for i, m := range p.Messages {
		if m == nil || len(m.Content) > 1 {
			return nil, fmt.Errorf("%w: sampling message %d has several content blocks, which Handlers.Sampling cannot take", reasonErr(ReasonInvalidInputRequest), i)
		}
		var content mcp.Content
		if len(m.Content) == 1 {
			content = m.Content[0]
		}
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.SamplingMessage
		msgs = append(msgs, &mcp.SamplingMessage{Role: m.Role, Content: content})
	}
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams
	return &mcp.CreateMessageParams{
		Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Messages: msgs,
		Metadata: p.Metadata, ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences,
		SystemPrompt: p.SystemPrompt, Temperature: p.Temperature,
	}, nil
}

// checkElicited checks an accepted form elicitation's content against the
// requested schema and fills in the schema's defaults for what the handler
// left out (SEP-1034), as the go-sdk does for a 2025-11-25 server's
// elicitation/create.
func checkElicited(p *mcp.ElicitParams, res *mcp.ElicitResult) error {
	if res.Action != "accept" || p.RequestedSchema == nil || p.Mode == "url" {
		return nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return fmt.Errorf("%w: requested schema: %w", reasonErr(ReasonInvalidInputRequest), err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%w: requested schema: %w", reasonErr(ReasonInvalidInputRequest), err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%w: requested schema: %w", reasonErr(ReasonInvalidInputRequest), err)
	}
	if res.Content == nil {
		res.Content = map[string]any{}
	}
	if err := rs.ApplyDefaults(&res.Content); err != nil {
		return fmt.Errorf("%w: elicitation content: %w", reasonErr(ReasonHandler), err)
	}
	if err := rs.Validate(res.Content); err != nil {
		return fmt.Errorf("%w: elicitation content does not match the requested schema: %w", reasonErr(ReasonHandler), err)
	}
	return nil
}

// The result types' input-required accessors, for rounds.

func toolInput(r *mcp.CallToolResult) *pending {
	if r == nil || !r.NeedsInput() {
		return nil
	}
	return &pending{r.InputRequests, r.RequestState}
}

func promptInput(r *mcp.GetPromptResult) *pending {
	if r == nil || !r.NeedsInput() {
		return nil
	}
	return &pending{r.InputRequests, r.RequestState}
}

func readInput(r *mcp.ReadResourceResult) *pending {
	if r == nil || !r.NeedsInput() {
		return nil
	}
	return &pending{r.InputRequests, r.RequestState}
}

// The continuations: a copy of the first request's params with the answers
// and the echoed state. The caller's params are never changed.

func toolNext(p *mcp.CallToolParams, a mcp.InputResponseMap, state string) *mcp.CallToolParams {
	q := *p
	q.InputResponses, q.RequestState = a, state
	return &q
}

func promptNext(p *mcp.GetPromptParams, a mcp.InputResponseMap, state string) *mcp.GetPromptParams {
	q := *p
	q.InputResponses, q.RequestState = a, state
	return &q
}

func readNext(p *mcp.ReadResourceParams, a mcp.InputResponseMap, state string) *mcp.ReadResourceParams {
	q := *p
	q.InputResponses, q.RequestState = a, state
	return &q
}
