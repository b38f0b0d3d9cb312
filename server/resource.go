package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime/debug"

	"github.com/looprig/mcp/internal/canonjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RegisterResource publishes r, read by h.
//
// Resources and prompts have no isError result, so their failures are
// JSON-RPC errors. A handler's *jsonrpc.Error (or an error wrapping one)
// is sent with its code. Use mcp.ResourceNotFoundError for a missing
// resource. Any other error is sent as an internal error (-32603) with its
// message. A panic, or a result whose encoding exceeds the result bound,
// is an internal error (-32603). Its message starts "handler panicked" or
// "result too large". The session goes on serving.
//
// RegisterResource returns an error wrapping [ErrInvalidDefinition] for a
// URI that is not absolute or a nil handler, and [ErrDuplicate] for a URI
// already registered.
func (s *Server) RegisterResource(r *mcp.Resource, h mcp.ResourceHandler) error {
	if r == nil || h == nil {
		return fmt.Errorf("server: resource: nil resource or handler: %w", ErrInvalidDefinition)
	}
	u, err := url.Parse(r.URI)
	if err != nil || !u.IsAbs() {
		return fmt.Errorf("server: resource %q: %w: URI must be absolute", r.URI, ErrInvalidDefinition)
	}
	if err := s.claim(s.resources, "resource", r.URI); err != nil {
		return err
	}
	s.mcp.AddResource(r, func(ctx context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
		if res, ok := takePending(ctx); ok {
			return res.(*mcp.ReadResourceResult), nil
		}
		c, err := s.continuation(ctx, binding{"resources/read", r.URI, nil, principal(req.Extra)}, &req.Params.RequestState, len(req.Params.InputResponses) > 0)
		if err != nil {
			s.logger.Warn("resource read refused", "resource", r.URI, "error", err)
			return nil, err
		}
		defer s.recoverRPC("resource", r.URI, &err)
		hctx, done := requestScoped(ctx)
		defer done()
		res, err = h(hctx, req)
		err = rpcError(err)
		if err == nil && res != nil && res.InputRequests != nil {
			err = s.askForRPC(ctx, "resource", c, req.Session, req.ClientCapabilities(), res.InputRequests, &res.RequestState)
			if err == nil && res.Contents == nil && !newProtocol(req.Session) {
				// For an older client the go-sdk treats the result as
				// complete until its engine sees it, and refuses a complete
				// read without contents: give it an empty list.
				res.Contents = []*mcp.ResourceContents{}
			}
		}
		if err != nil {
			return nil, err
		}
		if err := s.checkResult("resource", r.URI, res); err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}

// askForRPC is askFor for resources and prompts, whose failures are all
// JSON-RPC errors: a handler's failure to ask is an internal error.
func (s *Server) askForRPC(ctx context.Context, kind string, c *turn, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap, state *string) error {
	err := s.askFor(ctx, c, ss, caps, reqs, state)
	if err == nil {
		return nil
	}
	s.logger.Warn(kind+" failed", kind, c.b.name, "error", err)
	if werr, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return werr
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// RemoveResources withdraws the resources with the given URIs; unknown
// URIs are ignored.
func (s *Server) RemoveResources(uris ...string) {
	var gone []string
	for _, u := range uris {
		if s.release(s.resources, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
}

// RegisterPrompt publishes p, rendered by h.
//
// Before h runs, the request must name every argument p marks required.
// The total size of the argument names and values must be within the
// input bound. Otherwise the caller gets an invalid-params error (-32602).
// Other failures are as for [Server.RegisterResource].
//
// RegisterPrompt returns an error wrapping [ErrInvalidDefinition] for an
// empty name or a nil handler, and [ErrDuplicate] for a name already
// registered.
func (s *Server) RegisterPrompt(p *mcp.Prompt, h mcp.PromptHandler) error {
	if p == nil || h == nil {
		return fmt.Errorf("server: prompt: nil prompt or handler: %w", ErrInvalidDefinition)
	}
	if p.Name == "" {
		return fmt.Errorf("server: prompt: %w: empty name", ErrInvalidDefinition)
	}
	if err := s.claim(s.prompts, "prompt", p.Name); err != nil {
		return err
	}
	s.mcp.AddPrompt(p, func(ctx context.Context, req *mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		if res, ok := takePending(ctx); ok {
			return res.(*mcp.GetPromptResult), nil
		}
		if err := s.checkPromptArgs(p, req.Params.Arguments); err != nil {
			s.logger.Warn("prompt failed", "prompt", p.Name, "error", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		args, _ := canonjson.Marshal(req.Params.Arguments) // a map of strings always encodes
		c, err := s.continuation(ctx, binding{"prompts/get", p.Name, args, principal(req.Extra)}, &req.Params.RequestState, len(req.Params.InputResponses) > 0)
		if err != nil {
			s.logger.Warn("prompt refused", "prompt", p.Name, "error", err)
			return nil, err
		}
		defer s.recoverRPC("prompt", p.Name, &err)
		hctx, done := requestScoped(ctx)
		defer done()
		res, err = h(hctx, req)
		err = rpcError(err)
		if err == nil && res != nil && res.InputRequests != nil {
			err = s.askForRPC(ctx, "prompt", c, req.Session, req.ClientCapabilities(), res.InputRequests, &res.RequestState)
		}
		if err != nil {
			return nil, err
		}
		if err := s.checkResult("prompt", p.Name, res); err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}

// RemovePrompts withdraws the named prompts; unknown names are ignored.
func (s *Server) RemovePrompts(names ...string) {
	var gone []string
	for _, n := range names {
		if s.release(s.prompts, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemovePrompts(gone...)
	}
}

func (s *Server) checkPromptArgs(p *mcp.Prompt, args map[string]string) error {
	n := 0
	for k, v := range args {
		n += len(k) + len(v)
	}
	if exceeds(n, s.maxInputBytes) {
		return callError(CallInputTooLarge, "%d bytes of arguments exceed the %d-byte limit", n, s.maxInputBytes)
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return callError(CallInvalidInput, "missing required argument %q", a.Name)
		}
	}
	return nil
}

// checkResult returns the JSON-RPC error for a result over the bound.
func (s *Server) checkResult(kind, name string, res any) error {
	b, err := json.Marshal(res)
	if err != nil {
		err = fmt.Errorf("encoding result: %w", err)
	} else if exceeds(len(b), s.maxResultBytes) {
		err = callError(CallResultTooLarge, "%d bytes exceed the %d-byte limit", len(b), s.maxResultBytes)
	} else {
		return nil
	}
	s.logger.Warn(kind+" failed", kind, name, "error", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// recoverRPC turns a panic into an internal JSON-RPC error in *errp.
func (s *Server) recoverRPC(kind, name string, errp *error) {
	if v := recover(); v != nil {
		s.logger.Error(kind+" handler panicked", kind, name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		*errp = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%v: %v", CallPanic, v)}
	}
}

// rpcError gives a handler's error a valid JSON-RPC code. An error that
// is, or wraps, a *jsonrpc.Error with a code is sent with that code. (The
// go-sdk keeps the outer message.) Any other error becomes an internal
// error (-32603) with its message. So does one whose code is 0, which is
// no JSON-RPC code.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	if werr, ok := errors.AsType[*jsonrpc.Error](err); ok && werr.Code != 0 {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
