package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSentinels bounds the package's sentinel errors to those a caller
// branches on (issue 32); the failures a call meets are a *CallError's
// Reason.
func TestSentinels(t *testing.T) {
	leakcheck.Check(t)
	want := []string{"ErrDuplicate", "ErrInvalidDefinition", "ErrInvalidOptions", "ErrTaskNotFound", "ErrTooManyTasks"}
	if diff := cmp.Diff(want, testkit.Sentinels(t, ".")); diff != "" {
		t.Errorf("sentinels mismatch (-want +got):\n%s", diff)
	}
}

// errorLog keeps the errors a server logs.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *errorLog) WithGroup(string) slog.Handler            { return l }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "error" {
			l.mu.Lock()
			l.errs = append(l.errs, err)
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

func (l *errorLog) last(t *testing.T) error {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) == 0 {
		t.Fatal("no error logged")
	}
	return l.errs[len(l.errs)-1]
}

// TestCallErrorReasons: each failure the server finds in a call is logged
// as a *CallError with its Reason, its text the one the caller sees; a
// handler's own error is not a CallError.
func TestCallErrorReasons(t *testing.T) {
	leakcheck.Check(t)
	log := &errorLog{}
	s := newServer(t, "docs", "v1", &Options{MaxInputBytes: 64, MaxResultBytes: 128, Logger: slog.New(log)})
	mustRegister(t, s, lookupTool(), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Query string }
		json.Unmarshal(req.Params.Arguments, &in)
		switch in.Query {
		case "big":
			return textResult(strings.Repeat("r", 100)), nil
		case "panic":
			panic("boom")
		case "fail":
			return nil, errors.New("the handler's own")
		}
		return textResult(in.Query), nil
	})
	cs := connect(t, s)
	for _, tc := range []struct {
		name, args string
		reason     CallReason // 0: not a CallError
		text       string
	}{
		{"invalid input", `{"query":7}`, CallInvalidInput, `invalid input: validating root: validating /properties/query: type: 7 has type "integer", want "string"`},
		{"input too large", `{"query":"` + strings.Repeat("x", 60) + `"}`, CallInputTooLarge, "input too large: 72 bytes of arguments exceed the 64-byte limit"},
		{"result too large", `{"query":"big"}`, CallResultTooLarge, "result too large: "},
		{"panic", `{"query":"panic"}`, CallPanic, "handler panicked: boom"},
		{"handler's error", `{"query":"fail"}`, 0, "the handler's own"},
	} {
		got, isErr := call(t, cs, "lookup", tc.args)
		if !isErr || !strings.HasPrefix(got, tc.text) {
			t.Errorf("%s: CallTool = %q (isError %v), want isError text starting %q", tc.name, got, isErr, tc.text)
		}
		err := log.last(t)
		if err.Error() != got {
			t.Errorf("%s: logged %q, the caller saw %q", tc.name, err, got)
		}
		ce, ok := errors.AsType[*CallError](err)
		switch {
		case tc.reason == 0 && ok:
			t.Errorf("%s: logged a *CallError (%v), want the handler's error", tc.name, ce.Reason)
		case tc.reason != 0 && (!ok || ce.Reason != tc.reason):
			t.Errorf("%s: logged %v, want a *CallError with Reason %v", tc.name, err, tc.reason)
		}
		for _, r := range []CallReason{CallInvalidInput, CallInputTooLarge, CallResultTooLarge, CallPanic, CallTooManyRounds, CallInputUnavailable} {
			if isCall(err, r) != (r == tc.reason) {
				t.Errorf("%s: isCall(%v, %v) = %v", tc.name, err, r, !(r == tc.reason))
			}
		}
	}
}
