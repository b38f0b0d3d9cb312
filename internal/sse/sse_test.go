package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func data(s string) []byte { return []byte(s) }

// TestParseFollowsTheStandard walks the rules of "Interpreting an event
// stream", each with the case that tells it apart from a near miss.
func TestParseFollowsTheStandard(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Event
	}{
		{"one space after the colon is dropped", "data: x\n\n", []Event{{Data: data("x")}}},
		{"only one space is dropped", "data:  x \n\n", []Event{{Data: data(" x ")}}},
		{"no space", "data:x\n\n", []Event{{Data: data("x")}}},
		{"LF", "event: a\ndata: 1\n\n", []Event{{Name: "a", Data: data("1")}}},
		{"CRLF", "event: a\r\ndata: 1\r\n\r\n", []Event{{Name: "a", Data: data("1")}}},
		{"CR", "event: a\rdata: 1\r\r", []Event{{Name: "a", Data: data("1")}}},
		{"mixed line ends", "data: 1\rdata: 2\r\ndata: 3\n\r\n", []Event{{Data: data("1\n2\n3")}}},
		{"multi-line data", "data: a\ndata: b\ndata:\n\n", []Event{{Data: data("a\nb\n")}}},
		{"empty data is set, not nil", "data\n\n", []Event{{Data: data("")}}},
		{"comments are ignored", ": hello\ndata: x\n: again\n\n", []Event{{Data: data("x")}}},
		{"a comment-only block is no event", ": keepalive\n\n", nil},
		{"blank lines between events", "\n\n\ndata: x\n\n\n", []Event{{Data: data("x")}}},
		{"field without a colon has an empty value", "event\ndata: x\n\n", []Event{{Data: data("x")}}},
		{"unknown fields are ignored", "foo: bar\ndata: x\n\n", []Event{{Data: data("x")}}},
		{"a block of unknown fields is no event", "foo: bar\n\n", nil},
		{"id", "id: 7\ndata: x\n\n", []Event{{ID: "7", Data: data("x")}}},
		{"an id with NUL is ignored", "id: a\x00b\ndata: x\n\n", []Event{{Data: data("x")}}},
		{"an id-only block is reported", "id: s1_0\n\n", []Event{{ID: "s1_0"}}},
		{"the last id in a block wins", "id: 1\nid: 2\n\n", []Event{{ID: "2"}}},
		{"retry digits", "retry: 10\n\n", []Event{{Retry: "10"}}},
		{"retry not digits is ignored", "retry: 1s\ndata: x\n\n", []Event{{Data: data("x")}}},
		{"empty retry is ignored", "retry:\n\n", nil},
		{"colon in the value is kept", "data: {\"a\":1}\n\n", []Event{{Data: data(`{"a":1}`)}}},
		{"a leading byte order mark is skipped", "\ufeffdata: x\n\n", []Event{{Data: data("x")}}},
		{"an unfinished last event is discarded", "data: x\n\ndata: y\n", []Event{{Data: data("x")}}},
		{"an unfinished last line is discarded", "data: x\n\ndata: y", []Event{{Data: data("x")}}},
		{"event name", "event: endpoint\ndata: /m?s=1\n\n", []Event{{Name: "endpoint", Data: data("/m?s=1")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			// Fed one byte at a time, it gives the same events.
			var p Parser
			var pieces []Event
			for i := range len(tc.in) {
				if err := p.Feed([]byte{tc.in[i]}, func(e Event) error { pieces = append(pieces, e); return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, pieces); diff != "" && !strings.HasPrefix(tc.in, "\ufeff") {
				t.Errorf("byte by byte mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParserBound proves the bound at its edge: an event of exactly Max
// bytes (its blank line's line end included, of a CRLF the CR only)
// passes, one more byte fails, whatever the line ends.
func TestParserBound(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		line := "data: 0123456789" + eol // 16 + len(eol)
		max := len(line)*2 + 1
		ok := line + line + eol
		if _, err := parseMax(ok, max); err != nil {
			t.Errorf("eol %q: event of exactly %d bytes: %v", eol, max, err)
		}
		over := line + "x" + line + eol
		_, err := parseMax(over, max)
		var le *LimitError
		if !errors.As(err, &le) || !errors.Is(err, ErrTooLarge) || le.Max != max {
			t.Errorf("eol %q: event of %d bytes: error %v, want a *LimitError of %d", eol, max+1, err, max)
		}
		// Events after a full one start from zero: the bound is per event.
		if _, err := parseMax(ok+ok+ok, max); err != nil {
			t.Errorf("eol %q: three events of %d bytes: %v", eol, max, err)
		}
		// Comments count: they are held while the event is in progress.
		if _, err := parseMax(":"+strings.Repeat("c", max)+eol+line+eol, max); err == nil {
			t.Errorf("eol %q: comment over the bound accepted", eol)
		}
	}
}

func parseMax(s string, max int) ([]Event, error) {
	var evs []Event
	p := Parser{Max: max}
	err := p.Feed([]byte(s), func(e Event) error { evs = append(evs, e); return nil })
	return evs, err
}

// TestPending reports the event in progress as the bound counts it, so a
// caller can read no more than one byte past it.
func TestPending(t *testing.T) {
	var p Parser
	for _, step := range []struct {
		in   string
		want int
	}{{"data: ab", 8}, {"\r", 9}, {"\n", 10}, {"id: 1\n", 16}, {"\n", 0}, {"\r", 0}, {"\n", 0}, {"\r\n", 0}} {
		if err := p.Feed([]byte(step.in), func(Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := p.Pending(); got != step.want {
			t.Fatalf("after %q: Pending() = %d, want %d", step.in, got, step.want)
		}
	}
}

// TestAppendReadsBack writes events and reads them back.
func TestAppendReadsBack(t *testing.T) {
	evs := []Event{
		{Data: data(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{Name: "message", ID: "s1_3", Retry: "10", Data: data("a\nb")},
		{ID: "only"},
		{Data: data("")},
		{Data: data("  spaced  ")},
		{Data: data("line\r\nbreaks\rhere")},
	}
	var buf []byte
	for _, e := range evs {
		var err error
		if buf, err = Append(buf, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Event(nil), evs...)
	want[5].Data = data("line\nbreaks\nhere") // line breaks become LF
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back mismatch (-want +got):\n%s\n%q", diff, buf)
	}
	for _, bad := range []Event{{Name: "a\nb"}, {ID: "a\rb"}, {ID: "a\x00"}, {Retry: "1s"}} {
		if _, err := Append(nil, bad); !errors.Is(err, ErrUnwritable) {
			t.Errorf("Append(%+v) error = %v, want ErrUnwritable", bad, err)
		}
	}
}

// TestReader reads a stream through a reader that returns one byte at a
// time, then an error.
func TestReader(t *testing.T) {
	in := "data: 1\n\n: c\r\nid: 2\r\ndata: 2\r\n\r\ndata: 3"
	r := NewReader(iotest.OneByteReader(strings.NewReader(in)), 0)
	var got []Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	want := []Event{{Data: data("1")}, {ID: "2", Data: data("2")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reader mismatch (-want +got):\n%s", diff)
	}
	boom := errors.New("boom")
	r = NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom)), 0)
	if e, err := r.Next(); err != nil || string(e.Data) != "1" {
		t.Fatalf("Next = %+v, %v", e, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next error = %v, want the read error", err)
	}
	r = NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Next error = %v, want ErrTooLarge", err)
	}
}

// FuzzParse checks that a stream fed in two pieces parses as it does whole,
// and that the events written back read back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"data: x\n\n", "id: 1\r\nevent: e\r\ndata: a\r\ndata: b\r\n\r\n", ": c\rretry: 5\r\r", "\ufeffdata\n\n"} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		whole, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		cut = min(max(cut, 0), len(in))
		if bytes.HasPrefix(in, bom) {
			cut = max(cut, len(bom))
		}
		var p Parser
		var pieces []Event
		emit := func(e Event) error { pieces = append(pieces, e); return nil }
		if err := p.Feed(in[:cut], emit); err != nil {
			t.Fatal(err)
		}
		if err := p.Feed(in[cut:], emit); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole, pieces); diff != "" {
			t.Fatalf("pieces mismatch (-whole +pieces):\n%s", diff)
		}
		var buf []byte
		for _, e := range whole {
			if buf, err = Append(buf, e); err != nil {
				t.Fatalf("Append(%+v): %v", e, err)
			}
		}
		back, err := Parse(buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole, back); diff != "" {
			t.Fatalf("written back mismatch (-parsed +reparsed):\n%s\n%q", diff, buf)
		}
	})
}

// TestSDKView reads what Append writes as the go-sdk v1.8.0's reader does
// (mcp/event.go, scanEventsLimited: each value trimmed with
// strings.TrimSpace, each data line with bytes.TrimSpace, an event empty
// after that skipped), for values with and without white space around them.
func TestSDKView(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     Event
		want   Event
		wantOK bool
	}{
		{"a message is read as it is", Event{Name: "message", ID: "7", Data: data(`{"a":1}`)}, Event{Name: "message", ID: "7", Data: data(`{"a":1}`)}, true},
		{"values are trimmed", Event{Name: " message\t", ID: " 7 ", Retry: "10"}, Event{Name: "message", ID: "7", Retry: "10"}, true},
		{"each data line is trimmed", Event{Data: data(" a \n\tb\r\n c")}, Event{Data: data("a\nb\nc")}, true},
		{"a CR ends a data line", Event{Data: data("a\rb")}, Event{Data: data("a\nb")}, true},
		{"Unicode spaces are trimmed", Event{Data: data("\u00a0{}\u0085")}, Event{Data: data("{}")}, true},
		{"a byte that is no space stays", Event{Data: data("\xff{}\xc3\xa9")}, Event{Data: data("\xff{}\xc3\xa9")}, true},
		{"empty lines stay", Event{Data: data("a\n\nb\n")}, Event{Data: data("a\n\nb\n")}, true},
		{"data of spaces is empty, and so is the event", Event{Data: data("  ")}, Event{Data: data("")}, false},
		{"a name of spaces is none", Event{Name: "  ", Data: data("x")}, Event{Data: data("x")}, true},
		{"an id alone is an event", Event{ID: "s1"}, Event{ID: "s1"}, true},
		{"nothing is no event", Event{Name: " "}, Event{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SDKView(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.wantOK {
				t.Errorf("SDKView(%+v) = %v mismatch (-want +got):\n%s", tc.in, ok, diff)
			}
		})
	}
}

// FuzzSDKView checks SDKView's shortcut (data that needs no trimming is
// returned as it is) against the go-sdk's reading done in full: each line
// of the data trimmed, the lines joined with "\n".
func FuzzSDKView(f *testing.F) {
	for _, s := range []string{"{}", " {} ", "a\nb", "a \n b", "a\r\nb", "\u00a0x", "x\u0085", "\xc2", "\n", "", "a\n\u2028b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data)), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
		want := strings.Join(lines, "\n")
		got, _ := SDKView(Event{Data: data})
		if string(got.Data) != want {
			t.Fatalf("SDKView(%q).Data = %q, want %q", data, got.Data, want)
		}
	})
}
