package cassette

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CheckSSE is FuzzSSE's property: data fed in two pieces (cut at cut)
// parses as data fed whole, and the events written back as event-stream
// text parse to the same events.
func CheckSSE(t *testing.T, data []byte, cut int) {
	t.Helper()
	whole, err := parseSSE(data)
	if err != nil {
		t.Fatalf("parseSSE: %v", err)
	}
	if cut < 0 {
		cut = -cut
	}
	if len(data) > 0 {
		cut %= len(data) + 1
	} else {
		cut = 0
	}
	ps := &sseParser{}
	a, err := ps.feed(data[:cut])
	if err != nil {
		t.Fatal(err)
	}
	b, err := ps.feed(data[cut:])
	if err != nil {
		t.Fatal(err)
	}
	pieces := append(a, b...)
	if e, ok := ps.finish(); ok {
		pieces = append(pieces, e)
	}
	if diff := cmp.Diff(whole, pieces); diff != "" {
		t.Fatalf("events fed in pieces mismatch (-whole +pieces):\n%s", diff)
	}
	var buf bytes.Buffer
	for i := range whole {
		whole[i].wire(&buf)
	}
	back, err := parseSSE(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, back, cmp.AllowUnexported(sseEvent{})); diff != "" {
		t.Fatalf("events written back mismatch (-parsed +reparsed):\n%s\n%q", diff, buf.String())
	}
}
