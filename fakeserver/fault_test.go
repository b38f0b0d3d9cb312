package fakeserver

import (
	"errors"
	"github.com/looprig/mcp/internal/faultspec"
	"github.com/looprig/mcp/transport"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseFault reads every kind of the fake in its text form, at the
// edges of its bounds; each reads the same in the spelling before 0.2.0,
// KIND=TOOL, and String writes the @ form back.
func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want Fault
	}{
		{"delay@lookup:200ms", Fault{Kind: FaultDelay, Tool: "lookup", Delay: 200 * time.Millisecond}},
		{"delay@lookup:1ns", Fault{Kind: FaultDelay, Tool: "lookup", Delay: 1}},
		{"hang@lookup", Fault{Kind: FaultHang, Tool: "lookup"}},
		{"error@lookup", Fault{Kind: FaultError, Tool: "lookup"}},
		{"error@lookup:backend down: try later", Fault{Kind: FaultError, Tool: "lookup", Message: "backend down: try later"}},
		{"panic@lookup:boom", Fault{Kind: FaultPanic, Tool: "lookup", Message: "boom"}},
		{"oversize@lookup:20000000", Fault{Kind: FaultOversize, Tool: "lookup", Bytes: 20000000}},
		{"oversize@lookup:1", Fault{Kind: FaultOversize, Tool: "lookup", Bytes: 1}},
		{"flood-notifications@lookup:5000", Fault{Kind: FaultFloodNotifications, Tool: "lookup", Count: 5000}},
		{"flood-notifications@lookup:1", Fault{Kind: FaultFloodNotifications, Tool: "lookup", Count: 1}},
		{"env", Fault{Kind: FaultEnv}},
		{"crash@lookup", Fault{Kind: FaultCrash, Tool: "lookup"}},
		{"crash@lookup:7", Fault{Kind: FaultCrash, Tool: "lookup", Code: 7}},
		{"crash@lookup:255", Fault{Kind: FaultCrash, Tool: "lookup", Code: 255}},
		{"malformed@lookup", Fault{Kind: FaultMalformed, Tool: "lookup"}},
		{"flood-stderr:65536", Fault{Kind: FaultFloodStderr, Bytes: 65536}},
		{"flood-stderr@lookup:100", Fault{Kind: FaultFloodStderr, Tool: "lookup", Bytes: 100}},
		{"ignore-eof", Fault{Kind: FaultIgnoreEOF}},
		{"ignore-sigterm", Fault{Kind: FaultIgnoreSIGTERM}},
		{"grandchild", Fault{Kind: FaultGrandchild}},
		{"grandchild:setsid", Fault{Kind: FaultGrandchild, Setsid: true}},
		{"drop@lookup:0", Fault{Kind: FaultDrop, Tool: "lookup"}},
		{"drop-no-id@lookup:2", Fault{Kind: FaultDropNoID, Tool: "lookup", Events: 2}},
		{"delay-headers:1s", Fault{Kind: FaultDelayHeaders, Delay: time.Second}},
		{"delay-headers@lookup:1s", Fault{Kind: FaultDelayHeaders, Tool: "lookup", Delay: time.Second}},
		{"unauthorized", Fault{Kind: FaultUnauthorized}},
		{"unauthorized@lookup", Fault{Kind: FaultUnauthorized, Tool: "lookup"}},
		{"forbidden@lookup", Fault{Kind: FaultForbidden, Tool: "lookup"}},
		{"gone@lookup", Fault{Kind: FaultGone, Tool: "lookup"}},
		{"server-error", Fault{Kind: FaultServerError}},
		{"server-error:500", Fault{Kind: FaultServerError, Status: 500}},
		{"server-error@lookup:599", Fault{Kind: FaultServerError, Tool: "lookup", Status: 599}},
		{"no-get", Fault{Kind: FaultNoGet}},
		{"redirect", Fault{Kind: FaultRedirect}},
		{"redirect:301", Fault{Kind: FaultRedirect, Status: 301}},
		{"redirect:303", Fault{Kind: FaultRedirect, Status: 303}},
		{"redirect@lookup:307", Fault{Kind: FaultRedirect, Tool: "lookup", Status: 307}},
		{"redirect:308", Fault{Kind: FaultRedirect, Status: 308}},
		{"foreign-endpoint", Fault{Kind: FaultForeignEndpoint}},
		{"task@lookup", Fault{Kind: FaultTask, Tool: "lookup"}},
		{"task-required@lookup", Fault{Kind: FaultTaskRequired, Tool: "lookup"}},
		{"task-fail@lookup:disk full", Fault{Kind: FaultTaskFail, Tool: "lookup", Message: "disk full"}},
		{"task-input@lookup", Fault{Kind: FaultTaskInput, Tool: "lookup"}},
		{"task-expire:50ms", Fault{Kind: FaultTaskExpire, Delay: 50 * time.Millisecond}},
		{"task-poll-error@lookup:1", Fault{Kind: FaultTaskPollError, Tool: "lookup", Count: 1}},
		{"skill-digest@pdf-processing", Fault{Kind: FaultSkillDigest, Tool: "pdf-processing"}},
		{"skill-size@pdf-processing", Fault{Kind: FaultSkillSize, Tool: "pdf-processing"}},
		{"skill-frontmatter@pdf-processing", Fault{Kind: FaultSkillFrontmatter, Tool: "pdf-processing"}},
		{"skill-changed@pdf-processing", Fault{Kind: FaultSkillChanged, Tool: "pdf-processing"}},
	}
	seen := map[FaultKind]bool{}
	for _, tt := range tests {
		seen[tt.want.Kind] = true
		got, err := ParseFault(tt.in)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFault(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if err := got.check(); err != nil {
			t.Errorf("ParseFault(%q).check(): %v", tt.in, err)
		}
		// The text form round-trips, in the @ form.
		if s := got.String(); s != tt.in && !(got.Kind == FaultServerError && got.Status == 0) {
			t.Errorf("ParseFault(%q).String() = %q", tt.in, s)
		}
		if old := strings.Replace(tt.in, "@", "=", 1); old != tt.in {
			if again, err := ParseFault(old); err != nil || again != got {
				t.Errorf("ParseFault(%q), the old spelling, = %v, %v; want %v", old, again, err, got)
			}
		}
	}
	for _, k := range kindTable {
		if !seen[FaultKind(k.spec.Name)] {
			t.Errorf("kind %s has no case", k.spec.Name)
		}
	}
}

// TestParseFaultErrors: every rule refuses, each at the first value past
// its bound; the error names the text as written.
func TestParseFaultErrors(t *testing.T) {
	tests := []struct{ in, why string }{
		{"", "empty"},
		{"explode=lookup", `unknown kind "explode"`},
		{"explode@lookup", `unknown kind "explode"`},
		{"delay=lookup", "delay needs :DURATION"},
		{"delay:1s", "delay needs a TOOL"},
		{"delay=lookup:soon", `not "soon"`},
		{"delay=lookup:0s", `not "0s"`},
		{"delay@lookup:9999999999h", `not "9999999999h"`},
		{"hang", "hang needs a TOOL"},
		{"hang=lookup:1s", "hang takes no ARG"},
		{"hang@look\x1bup", `TOOL "look\x1bup" holds a control or format character`},
		{"oversize=lookup", "oversize needs :BYTES"},
		{"oversize=lookup:0", `not "0"`},
		{"oversize=lookup:-1", `not "-1"`},
		{"oversize=lookup:big", `not "big"`},
		{"oversize@lookup:99999999999999999999", `not "99999999999999999999"`},
		{"env=lookup", "env takes no TARGET"},
		{"env:1", "env takes no ARG"},
		{"crash=lookup:256", `crash takes a CODE 0 to 255, not "256"`},
		{"crash=lookup:x", `not "x"`},
		{"ignore-eof:1", "ignore-eof takes no ARG"},
		{"ignore-sigterm=lookup", "ignore-sigterm takes no TARGET"},
		{"grandchild=lookup", "grandchild takes no TARGET"},
		{"grandchild:daemon", `not "daemon"`},
		{"flood-notifications=lookup", "needs :COUNT"},
		{"flood-notifications=lookup:0", `not "0"`},
		{"flood-notifications=lookup:-1", `not "-1"`},
		{"flood-notifications:5", "needs a TOOL"},
		{"flood-stderr", "needs :BYTES"},
		{"flood-stderr:0", `not "0"`},
		{"malformed=", "malformed needs a TOOL"},
		{"drop@lookup", "drop needs :EVENTS"},
		{"drop@lookup:-1", `not "-1"`},
		{"drop:0", "drop needs a TOOL"},
		{"delay-headers", "needs :DURATION"},
		{"unauthorized@", "empty TOOL"},
		{"gone", "gone needs a TOOL"},
		{"server-error:499", `server-error takes a STATUS 500 to 599, not "499"`},
		{"server-error:600", `not "600"`},
		{"server-error:0", `not "0"`},
		{"no-get@lookup", "no-get takes no TARGET"},
		{"redirect:300", `redirect takes a STATUS 301 to 303 or 307 to 308, not "300"`},
		{"redirect:304", `not "304"`},
		{"redirect:306", `not "306"`},
		{"redirect:309", `not "309"`},
		{"foreign-endpoint:1", "takes no ARG"},
		{"task", "task needs a TOOL"},
		{"task-expire", "needs :DURATION"},
		{"task-expire=lookup:1s", "task-expire takes no TARGET"},
		{"task-expire:0s", `not "0s"`},
		{"task-poll-error=lookup", "needs :COUNT"},
		{"task-poll-error=lookup:0", `not "0"`},
		{"skill-digest", "skill-digest needs a SKILL"},
		{"skill-size@pdf:1", "takes no ARG"},
	}
	for _, tt := range tests {
		f, err := ParseFault(tt.in)
		var e *faultspec.Error
		if !errors.Is(err, transport.ErrBadFault) || !errors.As(err, &e) {
			t.Errorf("ParseFault(%q) = %v, %v; want a *faultspec.Error wrapping transport.ErrBadFault", tt.in, f, err)
			continue
		}
		if e.Text != tt.in || !strings.Contains(e.Why, tt.why) || !strings.HasPrefix(err.Error(), "fakeserver: fault ") {
			t.Errorf("ParseFault(%q) = %v; want its text, and why containing %q", tt.in, err, tt.why)
		}
	}
}

// TestFaultCheck: a Fault value is read by the same rules as its text,
// and a field its kind does not take is refused as before.
func TestFaultCheck(t *testing.T) {
	tests := []struct {
		f   Fault
		why string // empty: accepted
	}{
		{Fault{Kind: FaultCrash, Tool: "lookup", Code: 255}, ""},
		{Fault{Kind: FaultCrash, Tool: "lookup", Code: 256}, `not "256"`},
		{Fault{Kind: FaultServerError}, ""},
		{Fault{Kind: FaultServerError, Status: 499}, `not "499"`},
		{Fault{Kind: FaultRedirect, Status: 308}, ""},
		{Fault{Kind: FaultRedirect, Status: 309}, `not "309"`},
		{Fault{Kind: FaultHang, Tool: "lookup", Delay: time.Second}, ""}, // a field not read is let be, as before
		{Fault{Kind: FaultHang, Tool: "lookup", Delay: -1}, "negative or out-of-range parameter"},
		{Fault{Kind: FaultHang, Tool: "lookup", Status: 500}, "Status is for server-error and redirect only"},
		{Fault{Kind: FaultEnv, Setsid: true}, "setsid is for grandchild only"},
		{Fault{Kind: FaultEnv, Tool: "lookup"}, "env takes no TARGET"},
		{Fault{Kind: FaultDrop, Tool: "lookup", Events: -1}, `not "-1"`},
		{Fault{Kind: "explode"}, `unknown kind "explode"`},
	}
	for _, tt := range tests {
		err := tt.f.check()
		switch {
		case tt.why == "" && err != nil:
			t.Errorf("%v.check() = %v", tt.f, err)
		case tt.why != "" && (!errors.Is(err, transport.ErrBadFault) || !strings.Contains(err.Error(), tt.why)):
			t.Errorf("%#v.check() = %v; want a bad fault containing %q", tt.f, err, tt.why)
		}
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown catalog", Options{Catalog: "huge"}, `unknown catalog "huge"`},
		{"unknown tool", Options{Faults: []Fault{{Kind: FaultHang, Tool: "sample"}}}, `catalog "docs" has no tool "sample"`},
		{"unknown skill", Options{Faults: []Fault{{Kind: FaultSkillDigest, Tool: "pdf-processing"}}}, `catalog "docs" has no skill "pdf-processing"`},
		{"a tool is not a skill", Options{Catalog: CatalogRich, Faults: []Fault{{Kind: FaultSkillSize, Tool: "lookup"}}}, `catalog "rich" has no skill "lookup"`},
		{"bad fault value", Options{Faults: []Fault{{Kind: FaultDelay, Tool: "lookup"}}}, "delay takes a positive duration"},
		{"crash in-process", Options{Faults: []Fault{{Kind: FaultCrash, Tool: "lookup"}}}, "does not act in this process, only in a child process (fakeserver.Main)"},
		{"ignore-eof in-process", Options{Faults: []Fault{{Kind: FaultIgnoreEOF}}}, "does not act in this process, only in a stdio child (fakeserver.Main without --http)"},
		{"grandchild in-process", Options{Faults: []Fault{{Kind: FaultGrandchild}}}, "does not act in this process, only in a child process"},
	}
	for _, tt := range tests {
		fs, err := New(&tt.opts)
		if err == nil || fs != nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, %v; want nil and an error containing %q", tt.name, fs, err, tt.want)
		}
	}
	// A fault may name the env tool when the env fault adds it.
	if _, err := New(&Options{Faults: []Fault{{Kind: FaultEnv}, {Kind: FaultDelay, Tool: "env", Delay: time.Millisecond}}}); err != nil {
		t.Errorf("New with the env tool's own fault: %v", err)
	}
}

// On Windows the faults that need POSIX sessions or signals are refused,
// with an error that is both a bad fault and unsupported; every other kind,
// and every kind elsewhere, is accepted. The decision is tested here on
// every system.
func TestFaultsNeedingPOSIXRefusedOnWindows(t *testing.T) {
	needsPOSIX := map[string]bool{"ignore-sigterm": true, "grandchild:setsid": true}
	var texts []string
	for kind, a := range kinds {
		f := Fault{Kind: kind, Tool: "lookup", Delay: time.Second, Bytes: 1, Count: 1}
		if a.spec.Target.Need == faultspec.None {
			f.Tool = ""
		}
		texts = append(texts, f.String())
		if kind == FaultGrandchild {
			texts = append(texts, "grandchild:setsid")
		}
	}
	for _, text := range texts {
		f, err := ParseFault(text)
		if err != nil {
			t.Fatalf("ParseFault(%q): %v", text, err)
		}
		for _, goos := range []string{"linux", "darwin", "freebsd", "windows"} {
			err := f.checkSystem(goos)
			if refuse := goos == "windows" && needsPOSIX[text]; !refuse {
				if err != nil {
					t.Errorf("checkSystem(%q) of %q = %v, want nil", goos, text, err)
				}
				continue
			}
			if !errors.Is(err, transport.ErrBadFault) || !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("checkSystem(%q) of %q = %v, want an error wrapping transport.ErrBadFault and errors.ErrUnsupported", goos, text, err)
			}
		}
	}
}

// TestFaultFlagOldSpelling: the --fault flag of a fake's child reads the
// spelling of v0.1.0's scripts, KIND=TOOL, as the @ form.
func TestFaultFlagOldSpelling(t *testing.T) {
	c, err := parseFlags([]string{"--fault", "crash=lookup:7", "--fault", "error=lookup:down: later", "--fault", "crash@lookup:7"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Fault{{Kind: FaultCrash, Tool: "lookup", Code: 7}, {Kind: FaultError, Tool: "lookup", Message: "down: later"}, {Kind: FaultCrash, Tool: "lookup", Code: 7}}
	if diff := cmp.Diff(want, c.faults); diff != "" {
		t.Errorf("--fault mismatch (-want +got):\n%s", diff)
	}
}
