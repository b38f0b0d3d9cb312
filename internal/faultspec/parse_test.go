package faultspec

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/safetext"
)

// errBadFault stands for the sentinel a consumer names (cassette's and the
// fake's name errBadFault): a leaf imports nothing above it.
var errBadFault = errors.New("invalid fault")

// test is a grammar with every need and form: the consumers' tables
// (cassette's, the fake's) are tested, kind by kind, in their packages.
var test = &Grammar{Owner: "test", Class: errBadFault, Kinds: []Kind{
	{Name: "bare"},
	{Name: "hang", Target: Target{Need: Required, Form: Name, Name: "TOOL"}},
	{Name: "deny", Target: Target{Need: Optional, Form: Name, Name: "TOOL"}},
	{Name: "delay", Target: Target{Need: Required, Form: Name, Name: "TOOL"}, Arg: Arg{Need: Required, Form: Duration, Name: "DURATION"}},
	{Name: "error", Target: Target{Need: Required, Form: Name, Name: "TOOL"}, Arg: Arg{Need: Optional, Form: Text, Name: "MESSAGE"}},
	{Name: "crash", Target: Target{Need: Required, Form: Name, Name: "TOOL"}, Arg: Arg{Need: Optional, Form: Number, Name: "CODE", In: []Range{{0, 255}}}},
	{Name: "flood", Target: Target{Need: Optional, Form: Name, Name: "TOOL"}, Arg: Arg{Need: Required, Form: Number, Name: "BYTES", In: From(1)}},
	{Name: "redirect", Target: Target{Need: Optional, Form: Name, Name: "TOOL"}, Arg: Arg{Need: Optional, Form: Number, Name: "STATUS", In: []Range{{301, 303}, {307, 308}}}},
	{Name: "child", Arg: Arg{Need: Optional, Form: Word, Name: "setsid"}},
	{Name: "expire", Arg: Arg{Need: Required, Form: Duration, Name: "DURATION"}},
	{Name: "end", Target: Target{Need: Required, Form: Request, Name: "TARGET"}},
	{Name: "wait", Target: Target{Need: Required, Form: Request, Name: "TARGET"}, Arg: Arg{Need: Required, Form: Duration, Name: "DURATION"}},
}}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
	}{
		{"bare", Spec{Kind: "bare"}},
		{"hang@lookup", Spec{Kind: "hang", Target: "lookup"}},
		{"deny", Spec{Kind: "deny"}},
		{"deny@lookup", Spec{Kind: "deny", Target: "lookup"}},
		{"delay@lookup:200ms", Spec{Kind: "delay", Target: "lookup", Arg: "200ms", HasArg: true, Duration: 200 * time.Millisecond}},
		{"delay@lookup:1ns", Spec{Kind: "delay", Target: "lookup", Arg: "1ns", HasArg: true, Duration: 1}},
		{"error@lookup", Spec{Kind: "error", Target: "lookup"}},
		{"error@lookup:", Spec{Kind: "error", Target: "lookup", HasArg: true}},
		{"error@lookup:down: try later @ 5", Spec{Kind: "error", Target: "lookup", Arg: "down: try later @ 5", HasArg: true}},
		{"error@lookup:line\nbreak", Spec{Kind: "error", Target: "lookup", Arg: "line\nbreak", HasArg: true}}, // free text is the fake's to send
		{"crash@lookup:0", Spec{Kind: "crash", Target: "lookup", Arg: "0", HasArg: true}},
		{"crash@lookup:255", Spec{Kind: "crash", Target: "lookup", Arg: "255", HasArg: true, Number: 255}},
		{"flood:1", Spec{Kind: "flood", Arg: "1", HasArg: true, Number: 1}},
		{"flood@lookup:" + strconv.Itoa(maxInt), Spec{Kind: "flood", Target: "lookup", Arg: strconv.Itoa(maxInt), HasArg: true, Number: maxInt}},
		{"redirect:303", Spec{Kind: "redirect", Arg: "303", HasArg: true, Number: 303}},
		{"redirect:307", Spec{Kind: "redirect", Arg: "307", HasArg: true, Number: 307}},
		{"redirect@lookup:308", Spec{Kind: "redirect", Target: "lookup", Arg: "308", HasArg: true, Number: 308}},
		{"child", Spec{Kind: "child"}},
		{"child:setsid", Spec{Kind: "child", Arg: "setsid", HasArg: true}},
		{"expire:50ms", Spec{Kind: "expire", Arg: "50ms", HasArg: true, Duration: 50 * time.Millisecond}},
		{"end@1", Spec{Kind: "end", Target: "1", Message: 1}},
		{"end@" + strconv.Itoa(maxInt), Spec{Kind: "end", Target: strconv.Itoa(maxInt), Message: maxInt}},
		{"end@ping", Spec{Kind: "end", Target: "ping", Method: "ping"}},
		{"end@tools/call=lookup#1", Spec{Kind: "end", Target: "tools/call=lookup#1", Method: "tools/call", Name: "lookup", Nth: 1}},
		{"end@tools/call=get_weather#2", Spec{Kind: "end", Target: "tools/call=get_weather#2", Method: "tools/call", Name: "get_weather", Nth: 2}},
		{"end@resources/read=docs://readme", Spec{Kind: "end", Target: "resources/read=docs://readme", Method: "resources/read", Name: "docs://readme"}},
		{"end@tools/call=a#b", Spec{Kind: "end", Target: "tools/call=a#b", Method: "tools/call", Name: "a#b"}},
		{"wait@resources/read=docs://readme:1s", Spec{Kind: "wait", Target: "resources/read=docs://readme", Method: "resources/read", Name: "docs://readme", Arg: "1s", HasArg: true, Duration: time.Second}},
		{"wait@13:200ms", Spec{Kind: "wait", Target: "13", Message: 13, Arg: "200ms", HasArg: true, Duration: 200 * time.Millisecond}},
		// KIND=TARGET, the fake's old spelling, reads as KIND@TARGET.
		{"hang=lookup", Spec{Kind: "hang", Target: "lookup", Old: true}},
		{"error=lookup:down: later", Spec{Kind: "error", Target: "lookup", Arg: "down: later", HasArg: true, Old: true}},
		{"end=tools/call=lookup#2", Spec{Kind: "end", Target: "tools/call=lookup#2", Method: "tools/call", Name: "lookup", Nth: 2, Old: true}},
	}
	for _, tt := range tests {
		got, err := test.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestOldSpelling: KIND=TARGET parses as KIND@TARGET does, but for Old.
func TestOldSpelling(t *testing.T) {
	for _, in := range []string{"hang=lookup", "deny=lookup", "delay=lookup:1s", "error=lookup:a: b", "crash=lookup:7", "flood=lookup:3", "redirect=lookup:301", "end=7", "wait=tools/call=x#3:2s"} {
		old, err := test.Parse(in)
		if err != nil || !old.Old {
			t.Errorf("Parse(%q) = %+v, %v; want the old spelling", in, old, err)
			continue
		}
		now, err := test.Parse(strings.Replace(in, "=", "@", 1))
		old.Old = false
		if diff := cmp.Diff(now, old); err != nil || diff != "" {
			t.Errorf("Parse(%q) and its @ spelling differ (-@ +=), %v:\n%s", in, err, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, why string }{
		{"", "empty"},
		{"explode", `unknown kind "explode"`},
		{"explode@lookup", `unknown kind "explode"`},
		{"Hang@lookup", `unknown kind "Hang"`},
		{"hang lookup", `unknown kind "hang lookup"`},
		{"\x1b[2Jhang@lookup", `unknown kind "\x1b[2Jhang"`},
		{"bare@lookup", "bare takes no TARGET"},
		{"bare=lookup", "bare takes no TARGET"},
		{"bare:1", "bare takes no ARG"},
		{"hang", "hang needs a TOOL (want hang@TOOL)"},
		{"hang@", "hang needs a TOOL"},
		{"hang=", "hang needs a TOOL"},
		{"hang:1s", "hang needs a TOOL"},
		{"hang@lookup:1s", "hang takes no ARG"},
		{"deny@", "empty TOOL"},
		{"deny@:x", "empty TOOL"},
		{"hang@look\x1bup", `TOOL "look\x1bup" holds a control or format character`},
		{"hang@look\u202eup", `TOOL "look\u202eup" holds a control or format character`},
		{"hang@look\xffup", `TOOL "look\xffup" holds a control or format character`},
		{"delay@lookup", "delay needs :DURATION (want delay@TOOL:DURATION)"},
		{"delay@lookup:", "delay takes a positive duration as DURATION"},
		{"delay@lookup:soon", `not "soon"`},
		{"delay@lookup:0s", `not "0s"`},
		{"delay@lookup:-1s", `not "-1s"`},
		{"delay@lookup:9999999999h", `not "9999999999h"`},
		{"delay@lookup:1s\x07", `not "1s\x07"`},
		{"expire", "expire needs :DURATION"},
		{"crash@lookup:256", `crash takes a CODE 0 to 255, not "256"`},
		{"crash@lookup:-1", `not "-1"`},
		{"crash@lookup:+1", `not "+1"`},
		{"crash@lookup: 1", `not " 1"`},
		{"crash@lookup:x", `not "x"`},
		{"flood:0", `flood takes a BYTES from 1, not "0"`},
		{"flood:" + strconv.Itoa(maxInt) + "0", "not \"" + strconv.Itoa(maxInt) + "0\""},
		{"flood:99999999999999999999999999", `not "99999999999999999999999999"`},
		{"flood", "flood needs :BYTES"},
		{"redirect:300", "redirect takes a STATUS 301 to 303 or 307 to 308"},
		{"redirect:304", `not "304"`},
		{"redirect:306", `not "306"`},
		{"redirect:309", `not "309"`},
		{"redirect:", `not ""`},
		{"child:daemon", `child takes no ARG or "setsid", not "daemon"`},
		{"child:", `not ""`},
		{"child@x", "child takes no TARGET"},
		{"end", "end needs a TARGET"},
		{"end@0", "N must be a message number from 1, not 0"},
		{"end@99999999999999999999", "N must be a message number from 1"},
		{"end@tools/call=lookup#0", "NTH counts from 1, not 0"},
		{"end@tools/call=lookup#99999999999999999999", "NTH counts from 1"},
		{"end@lookup", `TARGET must be a message number or a request's method (tools/call, ping, …), not "lookup"`},
		{"end@tools/ call", "TARGET must be a message number"},
		{"end@3:x", "end takes no ARG"},
		{"wait@13", "wait needs :DURATION (want wait@TARGET:DURATION)"},
		{"wait@tools/call\t=x:1s", "holds a control or format character"},
	}
	for _, tt := range tests {
		_, err := test.Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, errBadFault) {
			t.Errorf("Parse(%q) = %v; want an *Error wrapping errBadFault", tt.in, err)
			continue
		}
		if e.Text != tt.in || e.Owner != "test" || !strings.Contains(e.Why, tt.why) {
			t.Errorf("Parse(%q) = %+v; want its text and why containing %q", tt.in, e, tt.why)
		}
		if msg := err.Error(); safetext.Line(msg) != msg || !strings.HasPrefix(msg, `test: fault "`+safetext.Line(tt.in)+`": invalid fault: `) {
			t.Errorf("Parse(%q): %q: want the text shown, its control characters visible", tt.in, msg)
		}
	}
}

// TestCheck: a fault given by its parts is read as its text form would be.
func TestCheck(t *testing.T) {
	tests := []struct {
		kind, target, arg string
		hasArg            bool
		why               string // empty: accepted
	}{
		{"hang", "lookup", "", false, ""},
		{"hang", "a:b", "", false, ""}, // a value's name is not cut at ':'
		{"hang", "", "", false, "hang needs a TOOL"},
		{"bare", "x", "", false, "bare takes no TARGET"},
		{"delay", "lookup", "0s", true, `not "0s"`},
		{"crash", "lookup", "255", true, ""},
		{"crash", "lookup", "256", true, `not "256"`},
		{"explode", "", "", false, `unknown kind "explode"`},
	}
	for _, tt := range tests {
		_, err := test.Check(tt.kind, tt.target, tt.arg, tt.hasArg)
		var e *Error
		switch {
		case tt.why == "" && err != nil:
			t.Errorf("Check(%q, %q, %q) = %v", tt.kind, tt.target, tt.arg, err)
		case tt.why != "" && (!errors.As(err, &e) || !strings.Contains(e.Why, tt.why)):
			t.Errorf("Check(%q, %q, %q) = %v; want an *Error containing %q", tt.kind, tt.target, tt.arg, err, tt.why)
		}
	}
}

func TestRequestTarget(t *testing.T) {
	tests := []struct {
		message      int
		method, name string
		nth          int
		want         string
	}{
		{12, "", "", 0, "12"},
		{0, "tools/list", "", 0, "tools/list"},
		{0, "tools/call", "lookup", 1, "tools/call=lookup"},
		{0, "tools/call", "lookup", 2, "tools/call=lookup#2"},
		{0, "tools/call", "v#2", 1, "tools/call=v#2#1"},
		{0, "tools/call", "v#2", 0, "tools/call=v#2"}, // zero is left out, so it reads as NTH 2 of "v"
	}
	for _, tt := range tests {
		if got := RequestTarget(tt.message, tt.method, tt.name, tt.nth); got != tt.want {
			t.Errorf("RequestTarget(%d, %q, %q, %d) = %q, want %q", tt.message, tt.method, tt.name, tt.nth, got, tt.want)
		}
	}
}

// TestUsage: the placeholders the document and the errors show.
func TestUsage(t *testing.T) {
	var got []string
	for _, k := range test.Kinds {
		got = append(got, k.Usage())
	}
	want := []string{"bare", "hang@TOOL", "deny[@TOOL]", "delay@TOOL:DURATION", "error@TOOL[:MESSAGE]", "crash@TOOL[:CODE]",
		"flood[@TOOL]:BYTES", "redirect[@TOOL][:STATUS]", "child[:setsid]", "expire:DURATION", "end@TARGET", "wait@TARGET:DURATION"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Usage mismatch (-want +got):\n%s", diff)
	}
}

// FuzzParse: any text parses, or is refused with an *Error that shows it
// with nothing hidden; what parses reads the same from its parts.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"hang@lookup", "hang=lookup", "error@a:b:c", "crash@x:255", "redirect:308", "child:setsid",
		"end@tools/call=x#2", "wait@resources/read=a://b:1s", "end@3:x", "", "\x1b", "flood:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := test.Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, errBadFault) || e.Text != s {
				t.Fatalf("Parse(%q) = %v; want an *Error holding the text", s, err)
			}
			if msg := err.Error(); safetext.Line(msg) != msg {
				t.Fatalf("Parse(%q): error %q hides characters", s, msg)
			}
			return
		}
		if hasHidden(sp.Target) || hasHidden(sp.Kind) {
			t.Fatalf("Parse(%q) = %+v: a hidden character in its kind or target", s, sp)
		}
		again, err := test.Check(sp.Kind, sp.Target, sp.Arg, sp.HasArg)
		again.Old = sp.Old
		if diff := cmp.Diff(sp, again); err != nil || diff != "" {
			t.Fatalf("Parse(%q) and Check of its parts differ (-parse +check), %v:\n%s", s, err, diff)
		}
		if text := Format(sp.Kind, sp.Target, sp.Arg, sp.HasArg); !sp.Old && text != s {
			t.Fatalf("Parse(%q) = %+v: its parts format as %q", s, sp, text)
		}
	})
}

// TestDocumentOwners: every row of FAULTS.md's table is a kind of cassette
// or of the fake; their own tests hold each row to their tables.
func TestDocumentOwners(t *testing.T) {
	doc, err := os.ReadFile("../../FAULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	all := Rows(string(doc), "")
	owned := len(Rows(string(doc), "cassette")) + len(Rows(string(doc), "fakeserver"))
	if len(all) == 0 || owned != len(all) {
		t.Errorf("FAULTS.md: %d rows, %d of cassette or fakeserver; want every row theirs", len(all), owned)
	}
}
