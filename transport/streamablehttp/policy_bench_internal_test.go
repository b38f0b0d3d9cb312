package streamablehttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// BenchmarkPolicy is what this package's policy costs per tool call, with
// no network: a call's POST through the connection's round tripper (origin,
// replay, concurrency, bounds, the reading of the answer and its handing
// over as JSON) and the reading of the body the go-sdk does, beside the
// same POST through the base round tripper alone ("base"). The base
// answers at once with an event stream that carries the answer and ends in
// the same read, as most loopback answers do. policy minus base is the
// time this package adds to the call's critical path, at each revision.
func BenchmarkPolicy(b *testing.B) {
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(rev, func(b *testing.B) { benchPolicy(b, rev) })
	}
}

func benchPolicy(b *testing.B, rev string) {
	// A request of 2026-07-28 carries the per-request _meta, as the
	// go-sdk writes it.
	meta := ""
	if rev >= "2026-07-28" {
		meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"v0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`
	}
	// The go-sdk numbers its calls: ids go round 2*replayWindow, so that an
	// id comes again only once the window has forgotten it.
	reqs, answers := make([][]byte, 2*replayWindow), make([][]byte, 2*replayWindow)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s"name":"count","arguments":{}}}`, i+1, meta)
		answers[i] = fmt.Appendf(nil, "id: 0_%d\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", i, i+1)
	}
	var answer []byte // the answer to the call in progress
	for _, side := range []string{"policy", "base"} {
		b.Run(side, func(b *testing.B) {
			base := baseFunc(func(r *http.Request) (*http.Response, error) {
				io.Copy(io.Discard, r.Body)
				// One piece: read whole, with io.EOF.
				return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
					Body: io.NopCloser(&pieces{answer}), Request: r}, nil
			})
			f, err := New("http://127.0.0.1:1/mcp", &Options{Base: base})
			if err != nil {
				b.Fatal(err)
			}
			st := newConnState(f)
			b.Cleanup(st.shutdown)
			var rt http.RoundTripper = st
			if side == "base" {
				rt = st.base
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				answer = answers[i%len(answers)]
				r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", bytes.NewReader(reqs[i%len(reqs)]))
				if err != nil {
					b.Fatal(err)
				}
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Mcp-Protocol-Version", rev)
				resp, err := rt.RoundTrip(r)
				if err != nil {
					b.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if side == "policy" && (resp.Header.Get("Content-Type") != "application/json" || got[0] != '{') {
					b.Fatalf("the answer was not handed over as JSON: %s %q", resp.Header.Get("Content-Type"), got)
				}
			}
		})
	}
}
