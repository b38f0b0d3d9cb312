package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/looprig/mcp/internal/sse"
	"github.com/looprig/mcp/transport"
)

// chunked hands out at most n bytes a Read.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// FuzzSessionStream reads any server bytes as the session stream, in any
// chunking, under any bounds: reading ends; at most one byte past
// MaxStreamBytes is read from the network; what the connection reads is
// the stream's events, in order, as internal/sse reads them within both
// bounds (a prefix of them when the stream fails), and all of them when it
// ends cleanly.
func FuzzSessionStream(f *testing.F) {
	for _, seed := range []string{
		endpointEvent + event(50) + event(60),
		endpointEvent + "data: {}\r\n\r\n: keepalive\r\n\r\nid: 7\nevent: message\ndata: a\ndata: b\n\n",
		"event:endpoint\rdata:/messages?sessionid=1\r\rdata: x\r\r",
		"event: message\ndata: {}\n\n",
		"event: endpoint\ndata: http://elsewhere.example/messages\n\n",
		endpointEvent + strings.Repeat("x", 300),
	} {
		f.Add([]byte(seed), uint8(7), uint16(64), uint16(200))
	}
	// At the stream's bound (16+200 bytes): exactly, one byte over with an
	// event ending there, and an endless line read in large chunks.
	f.Add([]byte(endpointEvent+event(216-len(endpointEvent))), uint8(255), uint16(1000), uint16(200))
	f.Add([]byte(endpointEvent+event(217-len(endpointEvent))), uint8(255), uint16(1000), uint16(200))
	f.Add([]byte(endpointEvent+strings.Repeat("x", 400)), uint8(255), uint16(1000), uint16(200))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, maxEvent, maxTotal uint16) {
		lim := Limits{MaxEventBytes: 16 + int64(maxEvent%1024), MaxStreamBytes: 16 + int64(maxTotal%4096)}
		fact, err := New("http://127.0.0.1:1/sse", &Options{Limits: lim})
		if err != nil {
			t.Fatal(err)
		}
		st := newConnState(fact)
		defer st.shutdown()
		cr := &countingReader{r: &chunked{r: strings.NewReader(string(in)), n: 1 + int(chunk)}}
		s := st.openStream(t.Context(), io.NopCloser(cr), func() {})
		got, rerr := readAll(t, s)
		if cr.n > lim.MaxStreamBytes+1 {
			t.Fatalf("read %d bytes from the network, want at most %d", cr.n, lim.MaxStreamBytes+1)
		}
		handed, err := sse.Parse(got)
		if err != nil {
			t.Fatalf("what the connection reads does not parse: %v\n%q", err, got)
		}
		var within []sse.Event
		p := sse.Parser{Max: int(lim.MaxEventBytes)}
		p.Feed(in[:min(int64(len(in)), lim.MaxStreamBytes)], func(e sse.Event) error { within = append(within, e); return nil })
		if len(handed) > len(within) || !cmp.Equal(handed, within[:len(handed)], cmpopts.EquateEmpty()) {
			t.Fatalf("handed events are not the stream's first ones (-stream +handed):\n%s", cmp.Diff(within, handed))
		}
		var le *transport.LimitError
		if errors.As(rerr, &le) && le.What == "stream" && int64(len(in)) <= lim.MaxStreamBytes {
			t.Fatalf("a stream of %d bytes failed its bound of %d: %v", len(in), lim.MaxStreamBytes, rerr)
		}
		if rerr == nil {
			all, _ := sse.Parse(in)
			if !cmp.Equal(handed, all, cmpopts.EquateEmpty()) {
				t.Fatalf("the stream ended cleanly but not all its events were handed (-stream +handed):\n%s", cmp.Diff(all, handed))
			}
		}
	})
}
