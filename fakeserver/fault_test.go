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

func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want Fault
	}{
		{"delay=lookup:200ms", Fault{Kind: FaultDelay, Tool: "lookup", Delay: 200 * time.Millisecond}},
		{"hang=lookup", Fault{Kind: FaultHang, Tool: "lookup"}},
		{"error=lookup", Fault{Kind: FaultError, Tool: "lookup"}},
		{"error=lookup:backend down: try later", Fault{Kind: FaultError, Tool: "lookup", Message: "backend down: try later"}},
		{"panic=lookup:boom", Fault{Kind: FaultPanic, Tool: "lookup", Message: "boom"}},
		{"oversize=lookup:20000000", Fault{Kind: FaultOversize, Tool: "lookup", Bytes: 20000000}},
		{"env", Fault{Kind: FaultEnv}},
		{"crash=lookup", Fault{Kind: FaultCrash, Tool: "lookup"}},
		{"crash=lookup:7", Fault{Kind: FaultCrash, Tool: "lookup", Code: 7}},
		{"malformed=lookup", Fault{Kind: FaultMalformed, Tool: "lookup"}},
		{"flood-stderr:65536", Fault{Kind: FaultFloodStderr, Bytes: 65536}},
		{"flood-stderr=lookup:100", Fault{Kind: FaultFloodStderr, Tool: "lookup", Bytes: 100}},
		{"ignore-eof", Fault{Kind: FaultIgnoreEOF}},
		{"ignore-sigterm", Fault{Kind: FaultIgnoreSIGTERM}},
		{"grandchild", Fault{Kind: FaultGrandchild}},
		{"flood-notifications=lookup:5000", Fault{Kind: FaultFloodNotifications, Tool: "lookup", Count: 5000}},
		{"grandchild:setsid", Fault{Kind: FaultGrandchild, Setsid: true}},
	}
	for _, tt := range tests {
		got, err := ParseFault(tt.in)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFault(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		// The text form round-trips.
		if again, err := ParseFault(got.String()); err != nil || again != got {
			t.Errorf("ParseFault(%q.String() = %q) = %v, %v; want %v", tt.in, got.String(), again, err, got)
		}
	}
}

func TestParseFaultErrors(t *testing.T) {
	for _, in := range []string{
		"", "explode=lookup", "delay=lookup", "delay:1s", "delay=lookup:soon", "delay=lookup:0s",
		"hang", "hang=lookup:1s", "oversize=lookup", "oversize=lookup:-1", "oversize=lookup:big",
		"env=lookup", "crash=lookup:300", "crash=lookup:x", "ignore-eof:1", "ignore-sigterm=lookup",
		"grandchild=lookup", "grandchild:daemon",
		"flood-notifications=lookup", "flood-notifications=lookup:0", "flood-notifications=lookup:-1", "flood-notifications:5", "flood-stderr", "malformed=",
	} {
		if f, err := ParseFault(in); !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("ParseFault(%q) = %v, %v; want transport.ErrBadFault", in, f, err)
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
