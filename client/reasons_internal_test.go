package client

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxSentinels is how many exported Err variables the package has. Issue
// 32 took it from 24 to 8: a new one needs a caller that branches on it.
const maxSentinels = 8

// TestSentinelCount: the package's non-test files declare at most
// maxSentinels exported Err variables, and these are they.
func TestSentinelCount(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, id := range s.(*ast.ValueSpec).Names {
					if id.IsExported() && strings.HasPrefix(id.Name, "Err") {
						got = append(got, id.Name)
					}
				}
			}
		}
	}
	sort.Strings(got)
	want := []string{"ErrCatalogLimit", "ErrClosed", "ErrHeld", "ErrNoHandler", "ErrOutcomeUnknown",
		"ErrRevisionMismatch", "ErrTaskTimeout", "ErrUnknownTool"}
	if len(got) > maxSentinels {
		t.Errorf("%d exported sentinels, at most %d: %v", len(got), maxSentinels, got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported sentinels mismatch (-want +got):\n%s", diff)
	}
}

// site marks a reason whose error's class is set where it is made.
const site FailureClass = 255

// kept is every exported sentinel, for the negative cases.
var kept = []error{ErrClosed, ErrUnknownTool, ErrHeld, ErrCatalogLimit, ErrOutcomeUnknown,
	ErrNoHandler, ErrTaskTimeout, ErrRevisionMismatch}

// TestReasons: each folded sentinel's error keeps its v0.1.0 message and
// class, matches its kept sentinel (and no other), and carries its Reason
// (and matches no other Reason), wrapped as the client wraps it.
func TestReasons(t *testing.T) {
	for _, tc := range []struct {
		err   *ReasonError
		msg   string       // the v0.1.0 sentinel's text
		class FailureClass // classify's answer; "site" where the error is made sets it
		is    error        // the kept sentinel it matches, or nil
	}{
		{reasonErr(ReasonDisabled), "binding disabled", ClassPolicy, ErrUnknownTool},
		{reasonErr(ReasonUnknownSkill), "unknown skill", site, ErrUnknownTool},
		{reasonErr(ReasonSkillHeld), "skill changed since pinned fingerprint; not accepted", site, ErrHeld},
		{reasonErr(ReasonCursorLoop), "pagination cursor repeated", ClassProtocol, ErrCatalogLimit},
		{reasonErr(ReasonInvalidCatalog), "invalid catalog", ClassProtocol, nil},
		{reasonErr(ReasonHandler), "handler failed", ClassPolicy, nil},
		{reasonErr(ReasonInvalidInputRequest), "invalid input request", ClassProtocol, nil},
		{reasonErr(ReasonHeaderMismatch), "request headers do not match its body", ClassProtocol, nil},
		{reasonErr(ReasonInputRounds), "too many input rounds", ClassPolicy, nil},
		{reasonErr(ReasonTaskPolls), "task still running after the poll bound", ClassPolicy, ErrTaskTimeout},
		{reasonErr(ReasonTaskFailed), "task failed", ClassServer, nil},
		{reasonErr(ReasonTaskCancelled), "task cancelled", ClassServer, nil},
		{reasonErr(ReasonInvalidTask), "invalid task", ClassProtocol, nil},
		{reasonErr(ReasonHandlerStuck), "handler still running after its context was cancelled", site, nil},
		{reasonErr(ReasonSkillMismatch), "skill file differs from its entry", site, nil},
		{reasonErr(ReasonUnknownProfile), "unknown profile", site, nil},
	} {
		t.Run(string(tc.err.Reason), func(t *testing.T) {
			inner := fmt.Errorf("%w: detail", tc.err)
			err := &Error{Class: classify(inner, nil, true, nil), Op: OpCallTool, Server: "s", Err: inner}
			if got, want := inner.Error(), tc.msg+": detail"; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			if tc.class != site && err.Class != tc.class {
				t.Errorf("class %v, want %v", err.Class, tc.class)
			}
			for _, s := range kept {
				if got, want := errors.Is(err, s), s == tc.is; got != want {
					t.Errorf("errors.Is(err, %q) = %v, want %v", s, got, want)
				}
			}
			var re *ReasonError
			if !errors.As(err, &re) || re.Reason != tc.err.Reason {
				t.Errorf("errors.As found %v, want Reason %q", re, tc.err.Reason)
			}
			if !errors.Is(err, &ReasonError{Reason: tc.err.Reason}) {
				t.Errorf("errors.Is(err, &ReasonError{%q}) = false", tc.err.Reason)
			}
			for _, other := range []Reason{ReasonCursorLoop, ReasonTaskPolls, ReasonDisabled, ""} {
				if other != tc.err.Reason && errors.Is(err, &ReasonError{Reason: other}) {
					t.Errorf("errors.Is(err, &ReasonError{%q}) = true", other)
				}
			}
		})
	}
}

// TestReasonErrorsAreTheirOwn: a caller that changes the *ReasonError
// errors.As gives it changes no later error of the same reason.
func TestReasonErrorsAreTheirOwn(t *testing.T) {
	first := fmt.Errorf("call lookup: %w", reasonErr(ReasonTaskFailed))
	var re *ReasonError
	if !errors.As(first, &re) {
		t.Fatalf("errors.As(%v) found no *ReasonError", first)
	}
	re.Reason = ReasonHandler
	second := fmt.Errorf("call lookup: %w", reasonErr(ReasonTaskFailed))
	if got := second.Error(); got != "call lookup: task failed" {
		t.Errorf("a later error reads %q; want %q", got, "call lookup: task failed")
	}
	if !errors.Is(second, &ReasonError{Reason: ReasonTaskFailed}) {
		t.Errorf("a later error does not match ReasonTaskFailed")
	}
}
