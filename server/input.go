package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/protocol"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxInputRounds bounds the input-required results of one call when
// Options.MaxInputRounds is zero: 10, as many requests as the go-sdk's
// client makes for one call before it gives up.
const DefaultMaxInputRounds = 10

// ElicitResponse returns the answer to the elicitation request named key in
// responses (req.Params.InputResponses), if there is one.
func ElicitResponse(responses mcp.InputResponseMap, key string) (*mcp.ElicitResult, bool) {
	r, ok := responses[key].(*mcp.ElicitResult)
	return r, ok && r != nil
}

// SamplingResponse returns the answer to the sampling request named key in
// responses, if there is one. The go-sdk decodes sampling answers as
// *mcp.CreateMessageWithToolsResult on both revisions; a
// *mcp.CreateMessageResult (as a test may build) is converted.
//
//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsResult
func SamplingResponse(responses mcp.InputResponseMap, key string) (*mcp.CreateMessageWithToolsResult, bool) {
	switch r := responses[key].(type) {
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsResult
	case *mcp.CreateMessageWithToolsResult:
		return r, r != nil
	//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
	case *mcp.CreateMessageResult:
		if r == nil {
			return nil, false
		}
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsResult
		return &mcp.CreateMessageWithToolsResult{
			Meta: r.Meta, Content: []mcp.Content{r.Content}, Model: r.Model, Role: r.Role, StopReason: r.StopReason,
		}, true
	}
	return nil, false
}

// RootsResponse returns the answer to the roots request named key in
// responses, if there is one.
//
//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsResult
func RootsResponse(responses mcp.InputResponseMap, key string) (*mcp.ListRootsResult, bool) {
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsResult
	r, ok := responses[key].(*mcp.ListRootsResult)
	return r, ok && r != nil
}

// newProtocol reports whether ss speaks 2026-07-28 or later, where input is
// asked for with input-required results. It is the go-sdk's own rule: a
// session without initialize parameters is on the current revision.
func newProtocol(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= protocol.Revision20260728
}

// statelessKey marks the context of a request served by stateless HTTP;
// its value is the HTTP request's context.
type statelessKey struct{}

// requestScoped returns ctx, ended also when the stateless HTTP request it
// serves ends (the client went away, or HTTPHandler.Close): the reply can
// then no longer be delivered. The go-sdk does this itself for 2026-07-28
// requests; this covers older ones served statelessly.
func requestScoped(ctx context.Context) (context.Context, context.CancelFunc) {
	req, ok := ctx.Value(statelessKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(req, cancel)
	return ctx, func() { stop(); cancel() }
}

// turn is one request that may ask for input: what its state is bound to,
// and the round it is in.
type turn struct {
	b     binding
	round int // input-required results before this request
}

// continuation opens the sealed state of a request (*state, replaced by the
// handler's own state), or starts round 0 if there is none. Some are
// refused with invalid params: a state that was altered or moved, has
// expired (Options.StateTTL) or was used before (Options.StateStore). So
// are answers sent without a state. A store that cannot record the use
// refuses the request as the server busy.
func (s *Server) continuation(ctx context.Context, b binding, state *string, answered bool) (*turn, error) {
	c := &turn{b: b}
	if *state == "" {
		if answered {
			return nil, invalidParams("%v: inputResponses sent without one answer input requests that were never made (a continuation echoes the requestState of the result that asked)", errBadState)
		}
		return c, nil
	}
	st, err := s.open(b, *state)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	var expires time.Time
	if s.stateTTL >= 0 {
		if st.issued.IsZero() {
			return nil, invalidParams("%v: it carries no issue time, and Options.StateTTL bounds continuations", errBadState)
		}
		if age := time.Since(st.issued); age > s.stateTTL {
			return nil, invalidParams("%v: it expired: issued %v ago, and a continuation is accepted for %v (Options.StateTTL)", errBadState, age.Round(time.Millisecond), s.stateTTL)
		}
		expires = st.issued.Add(s.stateTTL)
	}
	first, err := s.states.Use(ctx, st.id, expires)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is busy, retry later: recording the continuation: " + err.Error()}
	}
	if !first {
		return nil, invalidParams("%v: it was used before, and a continuation is accepted once", errBadState)
	}
	c.round, *state = st.round, st.user
	return c, nil
}

// invalidParams is the JSON-RPC error -32602 with the message format makes.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// principal is the authenticated user a request came from (the go-sdk's
// auth.TokenInfo.UserID), or "".
func principal(extra *mcp.RequestExtra) string {
	if extra == nil || extra.TokenInfo == nil {
		return ""
	}
	return extra.TokenInfo.UserID
}

// askFor checks the input requests a handler returned and seals its state
// (*state). A *jsonrpc.Error is to be sent as is; any other error is the
// handler's failure.
func (s *Server) askFor(ctx context.Context, c *turn, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap, state *string) error {
	newProto := newProtocol(ss)
	if len(reqs) == 0 && !newProto {
		return errBusy
	}
	if !newProto && ctx.Value(statelessKey{}) != nil {
		return callError(CallInputUnavailable, "%s needs %s, and a client on protocol revision %s can be asked only in a session, which stateless HTTP serving does not keep",
			c.b.name, strings.Join(kinds(reqs), ", "), ss.InitializeParams().ProtocolVersion)
	}
	if missing := missingCapabilities(caps, reqs, newProto); len(missing) > 0 {
		return missingCapabilityError(c.b.name, missing)
	}
	round := c.round + 1
	if s.maxRounds >= 0 && round > s.maxRounds {
		return callError(CallTooManyRounds, "%s asked for input %d times in one call; the limit is %d (Options.MaxInputRounds)", c.b.name, round, s.maxRounds)
	}
	*state = s.seal(c.b, round, *state)
	return nil
}

// missingCapabilityError is -32021 for the capabilities name needs that the
// client did not declare. The error data is
// MissingRequiredClientCapabilityData, written by hand:
// mcp.ClientCapabilities always encodes "roots".
func missingCapabilityError(name string, missing []string) *jsonrpc.Error {
	required := make(map[string]struct{}, len(missing))
	for _, m := range missing {
		required[m] = struct{}{}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": required})
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: fmt.Sprintf("%s needs client capabilities the client did not declare: %s", name, strings.Join(missing, ", ")),
		Data:    data,
	}
}

// kinds names what input requests ask for, sorted.
func kinds(reqs mcp.InputRequestMap) []string {
	var out []string
	for _, r := range reqs {
		var k string
		switch r.(type) {
		case *mcp.ElicitParams:
			k = "elicitation"
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageWithToolsParams
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			k = "sampling"
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
		case *mcp.ListRootsParams:
			k = "roots"
		default:
			k = fmt.Sprintf("%T", r)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// missingCapabilities returns the names of the capabilities reqs need
// that caps lacks, sorted. Roots are checked only on the current revision:
// a 2025-11-25 client's initialize capabilities, as the go-sdk decodes
// them, do not tell "roots": {} from no roots. A client declares roots
// with RootsV2: the go-sdk sets it from the "roots" member it decodes, and
// sends "roots" only when RootsV2 is set.
func missingCapabilities(caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap, newProto bool) []string {
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	var missing []string
	for _, kind := range kinds(reqs) {
		switch {
		case kind == "elicitation" && caps.Elicitation == nil,
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.Sampling
			kind == "sampling" && caps.Sampling == nil,
			//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ClientCapabilities.RootsV2
			kind == "roots" && newProto && caps.RootsV2 == nil:
			missing = append(missing, kind)
		}
	}
	return missing
}

// pendingKey carries, into the handler wrappers, an input-required result
// that is to be returned once more without running the handler: see
// Server.roundsForOlderClients.
type pendingKey struct{}

type pending struct {
	res  mcp.Result
	used atomic.Bool
}

// take returns the pending result of ctx, once.
func takePending(ctx context.Context) (mcp.Result, bool) {
	p, ok := ctx.Value(pendingKey{}).(*pending)
	if !ok || !p.used.CompareAndSwap(false, true) {
		return nil, false
	}
	return p.res, true
}

// roundsForOlderClients is receiving middleware for clients before
// 2026-07-28. The go-sdk's own middleware (inside this one) answers one
// round of input requests with server-to-client requests. It then runs the
// handler once more. If that asks again, this middleware hands the new
// input-required result back to the go-sdk's. (The handler wrapper returns
// it without running the handler.) So its requests are fulfilled the same
// way, round after round. The round bound is the handler wrappers'.
func (s *Server) roundsForOlderClients(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" && method != "prompts/get" && method != "resources/read" {
			return next(ctx, method, req)
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || newProtocol(ss) {
			return next(ctx, method, req)
		}
		res, err := s.askOlderClient(ctx, next, method, req)
		if _, rpc := err.(*jsonrpc.Error); err != nil && !rpc && method == "tools/call" {
			// Asking the client failed (it refused, failed, or answered
			// out of schema): a tool failure the model can read, as for
			// any tool.
			s.logger.Warn("tool call failed", "error", err)
			res := &mcp.CallToolResult{}
			res.SetError(callError(CallInputUnavailable, "%v", err))
			return res, nil
		}
		return res, err
	}
}

// askOlderClient runs the rounds of one call of an older client. (The
// handler wrappers turn load shedding and a round past the bound into
// errors first; the checks here are a backstop.)
func (s *Server) askOlderClient(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	for handed := 0; err == nil; handed++ {
		switch reqs := inputRequests(res); {
		case reqs == nil:
			return res, nil
		case len(reqs) == 0:
			return nil, errBusy
		case s.maxRounds >= 0 && handed > s.maxRounds:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%v: the limit is %d (Options.MaxInputRounds)", CallTooManyRounds, s.maxRounds)}
		}
		res, err = next(context.WithValue(ctx, pendingKey{}, &pending{res: res}), method, req)
	}
	return res, err
}

// errBusy answers load shedding (an input-required result with no
// requests) to a client before 2026-07-28, which has no other way to be
// told to retry later; the go-sdk answers so too.
var errBusy = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is busy, retry later"}

func inputRequests(res mcp.Result) mcp.InputRequestMap {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r != nil {
			return r.InputRequests
		}
	case *mcp.GetPromptResult:
		if r != nil {
			return r.InputRequests
		}
	case *mcp.ReadResourceResult:
		if r != nil {
			return r.InputRequests
		}
	}
	return nil
}
