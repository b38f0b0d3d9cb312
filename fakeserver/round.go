package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a tool of the fake's own catalog: every round is
// counted once its input has passed validation, then the faults scripted
// for the tool act, then reply runs.
func (s *Server) addTool(t *mcp.Tool, reply Reply) error {
	name := t.Name
	return s.register(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call := s.begin(name, req)
		res, err := s.round(ctx, req, func(ctx context.Context) (*mcp.CallToolResult, error) { return reply(ctx, call) })
		if err == nil && res != nil && res.InputRequests != nil {
			res.RequestState = formatState(call.N, call.Round+1, res.RequestState)
		}
		return res, err
	})
}

// round counts one round of tool, applies the faults scripted for it and,
// unless one of them decides the outcome, runs next. A round whose result
// asks for input is then counted as a round only.
func (s *Server) round(ctx context.Context, req *mcp.CallToolRequest, next func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	tool := req.Params.Name
	s.countRound(tool)
	for _, f := range s.faults {
		if f.Tool != tool {
			continue
		}
		if res, err, done := s.apply(ctx, req, f); done {
			return res, err
		}
		if res, done, err := s.applyTask(req, f); done {
			if err == nil && res.InputRequests != nil {
				s.askedForInput(tool)
			}
			return res, err
		}
	}
	res, err := next(ctx)
	if err == nil && res != nil && res.InputRequests != nil {
		s.askedForInput(tool)
	}
	return res, err
}

// begin numbers a round: a first round gets the tool's next call number,
// a continuation the number and round its request state carries.
func (s *Server) begin(tool string, req *mcp.CallToolRequest) *Call {
	c := &Call{Tool: tool, Round: 1, Arguments: req.Params.Arguments, Request: req}
	if n, r, user, ok := parseState(req.Params.RequestState); ok {
		c.N, c.Round, c.RequestState = n, r, user
		c.InputResponses = req.Params.InputResponses
		return c
	}
	s.mu.Lock()
	s.calls[tool]++
	c.N = s.calls[tool]
	s.mu.Unlock()
	return c
}

// statePrefix marks the request state a fake hands out with an
// input-required result: "fakeserver:N:R:" then the reply's own state. So
// the continuation (a new request, on any connection) keeps its call's
// number. It knows its round with nothing kept at the server.
const statePrefix = "fakeserver:"

func formatState(n, round int, user string) string {
	return statePrefix + strconv.Itoa(n) + ":" + strconv.Itoa(round) + ":" + user
}

func parseState(s string) (n, round int, user string, ok bool) {
	rest, found := strings.CutPrefix(s, statePrefix)
	if !found {
		return 0, 0, "", false
	}
	ns, rest, ok1 := strings.Cut(rest, ":")
	rs, user, ok2 := strings.Cut(rest, ":")
	n, err1 := strconv.Atoi(ns)
	round, err2 := strconv.Atoi(rs)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || n < 1 || round < 2 {
		return 0, 0, "", false
	}
	return n, round, user, true
}

// apply performs fault f on a round; done reports that the round's outcome
// is decided.
//
// A hang or a delay holds the call until it is cancelled, its session is
// ended by its client (a DELETE), or the fake is closed.
func (s *Server) apply(ctx context.Context, req *mcp.CallToolRequest, f Fault) (res *mcp.CallToolResult, err error, done bool) {
	switch f.Kind {
	case FaultDelay:
		ended := s.sessionEnded(req)
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err(), true
		case <-s.quit:
			return nil, errHung, true
		case <-ended:
			return nil, errHung, true
		}
	case FaultHang:
		ended := s.sessionEnded(req)
		select {
		case <-ctx.Done():
		case <-s.quit:
		case <-ended:
		}
		return nil, errHung, true
	case FaultError:
		return nil, errors.New(f.message("scripted failure")), true
	case FaultPanic:
		if s.wrapped {
			// A go-sdk server does not recover its handlers' panics: the
			// test binary would die. Answer as the server package does.
			return nil, fmt.Errorf("handler panicked: %s", f.message("scripted panic")), true
		}
		panic(f.message("scripted panic"))
	case FaultOversize:
		return text(strings.Repeat("x", f.Bytes)), nil, true
	case FaultFloodNotifications:
		for i := range f.Count {
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
			err := req.Session.Log(ctx, &mcp.LoggingMessageParams{
				Level: "info", Logger: "fakeserver", Data: fmt.Sprintf("flood %d of %d", i+1, f.Count),
			})
			if err != nil {
				return nil, fmt.Errorf("flood-notifications: %w", err), true
			}
		}
	case FaultCrash:
		s.proc.exit(cmp0(f.Code, 1))
	case FaultMalformed:
		s.proc.writeMalformed()
	case FaultFloodStderr:
		s.proc.flood(f.Bytes)
	}
	return nil, nil, false
}

func cmp0(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
