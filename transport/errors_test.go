package transport_test

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSharedErrors pins how the shared errors match: by value, through
// their struct types, and (ErrLimit, ErrTimeout) by JSON-RPC code, as a
// call sees them when the go-sdk hands it only a code and a message.
func TestSharedErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"ErrClosed is the go-sdk's end of connection", fmt.Errorf("write: %w", transport.ErrClosed), mcp.ErrConnectionClosed, true},
		{"LimitError is ErrLimit", &transport.LimitError{Transport: "sse", What: "body", Limit: 1}, transport.ErrLimit, true},
		{"LimitError is not ErrTimeout", &transport.LimitError{}, transport.ErrTimeout, false},
		{"TimeoutError is ErrTimeout", &transport.TimeoutError{Phase: "dial"}, transport.ErrTimeout, true},
		{"TimeoutError keeps its cause", &transport.TimeoutError{Phase: "dial", Err: net.ErrClosed}, net.ErrClosed, true},
		{"a wire error with CodeLimit is ErrLimit", &jsonrpc.Error{Code: transport.CodeLimit, Message: "x"}, transport.ErrLimit, true},
		{"a wire error with CodeTimeout is ErrTimeout", &jsonrpc.Error{Code: transport.CodeTimeout, Message: "x"}, transport.ErrTimeout, true},
		{"another code is neither", &jsonrpc.Error{Code: -32603, Message: "x"}, transport.ErrTimeout, false},
		{"RedirectError is its reason", &transport.RedirectError{Err: &transport.PolicyError{Rule: transport.RuleRedirectedPOST}}, &transport.PolicyError{Rule: transport.RuleRedirectedPOST}, true},
		{"RedirectError is not another reason", &transport.RedirectError{Err: &transport.PolicyError{Rule: transport.RuleRedirectedPOST}}, &transport.PolicyError{Rule: transport.RuleCrossOriginRedirect}, false},
	} {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("%s: errors.Is(%v, %v) = %v, want %v", tc.name, tc.err, tc.target, got, tc.want)
		}
	}
	var to interface{ Timeout() bool }
	if te := error(&transport.TimeoutError{Phase: "idle read"}); !errors.As(te, &to) || !to.Timeout() {
		t.Error("TimeoutError does not report Timeout")
	}
	if got := (&transport.LimitError{Transport: "streamablehttp", What: "json body", Limit: 10}).Error(); got != "streamablehttp: json body over 10 bytes" {
		t.Errorf("LimitError text = %q", got)
	}
}

// TestPolicyErrorRules pins the folded HTTP policy refusals: each rule's
// error matches ErrPolicy and its own rule, no other rule and no other
// class, and its text is the old sentinel's.
func TestPolicyErrorRules(t *testing.T) {
	texts := map[transport.Rule]string{
		transport.RuleInsecure:            "insecure endpoint",
		transport.RuleCrossOrigin:         "request to another origin",
		transport.RuleCrossOriginRedirect: "redirect to another origin",
		transport.RuleRedirectedPOST:      "redirect of a POST",
		transport.RuleTooManyRedirects:    "too many redirects",
	}
	for r, text := range texts {
		err := fmt.Errorf("sse: %w: x", &transport.PolicyError{Rule: r})
		if got := (&transport.PolicyError{Rule: r}).Error(); got != text {
			t.Errorf("rule %d text = %q, want %q", int(r), got, text)
		}
		if !errors.Is(err, transport.ErrPolicy) || !errors.Is(err, &transport.PolicyError{Rule: r}) {
			t.Errorf("%v does not match ErrPolicy and its rule %v", err, r)
		}
		for other := range texts {
			if other != r && errors.Is(err, &transport.PolicyError{Rule: other}) {
				t.Errorf("%v matches rule %v", err, other)
			}
		}
		for name, s := range sentinels {
			if s != transport.ErrPolicy && errors.Is(err, s) {
				t.Errorf("%v matches %s", err, name)
			}
		}
		var pe *transport.PolicyError
		if !errors.As(&transport.RedirectError{Err: &transport.PolicyError{Rule: r}}, &pe) || pe.Rule != r {
			t.Errorf("RedirectError of rule %v: errors.As gives %v", r, pe)
		}
	}
	if got := transport.Rule(0).String(); got != "Rule(0)" {
		t.Errorf("Rule(0).String() = %q, want Rule(0)", got)
	}
	//lint:ignore SA1032 the order is the point: the class sentinel alone must not match a rule
	if errors.Is(transport.ErrPolicy, &transport.PolicyError{Rule: transport.RuleInsecure}) {
		t.Error("ErrPolicy alone matches a rule")
	}
}
