package cassette_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/benchpair"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchSession connects a go-sdk client through tr and makes n distinct
// echo calls.
func benchSession(b *testing.B, tr mcp.Transport, n int) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strconv.Itoa(i)}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	if err := cs.Close(); err != nil {
		b.Fatal(err)
	}
}

// factorySession runs benchSession over f.
func factorySession(b *testing.B, f transport.Factory, n int) {
	tr, err := f.Transport()
	if err != nil {
		b.Fatal(err)
	}
	benchSession(b, tr, n)
}

// synthetic writes a cassette of an n-call echo session, as the go-sdk
// client records it, and returns its path and size: a recorded one-call
// session, its call and answer repeated with new ids and texts.
func synthetic(b *testing.B, n int) (string, int) {
	b.Helper()
	one := tempPath(b, "one.jsonl")
	f, err := cassette.Open(one, inprocess.New(newCounter().srv), &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		b.Fatal(err)
	}
	factorySession(b, f, 1)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	data, _ := os.ReadFile(one)
	lines := strings.SplitAfter(string(data), "\n")
	// header, initialize, its answer, initialized, the call, its answer, the close, the end.
	callLine, answerLine := lines[4], lines[5]
	var buf bytes.Buffer
	buf.WriteString(strings.Join(lines[:4], ""))
	for i := range n {
		id, text := strconv.Itoa(i+2), strconv.Itoa(i)
		buf.WriteString(strings.Replace(strings.Replace(callLine, `"id":2`, `"id":`+id, 1), `"text":"0"`, `"text":"`+text+`"`, 1))
		buf.WriteString(strings.Replace(strings.Replace(answerLine, `"id":2`, `"id":`+id, 1), `"echo: 0"`, `"echo: `+text+`"`, 1))
	}
	buf.WriteString(strings.Join(lines[6:], ""))
	path := tempPath(b, "synthetic.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, buf.Len()
}

// BenchmarkSession compares a 1,000-call session run live over the go-sdk's
// NewInMemoryTransports with the same session replayed from a loaded
// cassette (Replay included).
func BenchmarkSession(b *testing.B) {
	const n = 1000
	srv := newCounter().srv
	b.Run("live-go-sdk-inmemory", func(b *testing.B) {
		live := liveSession(b, srv, n)
		for b.Loop() {
			live()
		}
	})
	b.Run("replay", func(b *testing.B) { replayLoop(b, n) })
}

// BenchmarkSessionPaired is BenchmarkSession with the two sides taking
// turns session by session (internal/benchpair): replay-ns/op and
// live-go-sdk-inmemory-ns/op are measured in the same moments, which makes
// their ratio fair on a busy machine. scripts/bench reports it.
func BenchmarkSessionPaired(b *testing.B) {
	const n = 1000
	benchpair.Run(b,
		benchpair.Side{Name: "replay", Op: replaySession(b, n)},
		benchpair.Side{Name: "live-go-sdk-inmemory", Op: liveSession(b, newCounter().srv, n)},
	)
}

// liveSession returns an n-call session with srv over the go-sdk's
// NewInMemoryTransports.
func liveSession(b *testing.B, srv *mcp.Server, n int) func() {
	return func() {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchSession(b, ct, n)
		ss.Wait()
	}
}

// replayLoop replays a synthetic n-call session, loaded once, in every
// iteration (Replay included).
func replayLoop(b *testing.B, n int) {
	replay := replaySession(b, n)
	for b.Loop() {
		replay()
	}
}

// replaySession returns a replay of a synthetic n-call session, loaded
// once (Replay included).
func replaySession(b *testing.B, n int) func() {
	path, _ := synthetic(b, n)
	c, err := cassette.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		f, err := cassette.Replay(c, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		factorySession(b, f, n)
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayPerCall replays sessions of 10^3 and 10^5 calls and
// reports the time per call: it must not grow with the cassette.
func BenchmarkReplayPerCall(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run("calls="+strconv.Itoa(n), func(b *testing.B) {
			replayLoop(b, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}

// BenchmarkLoad loads a 10^5-call cassette. It reports throughput (MB/s)
// and the heap the loaded cassette holds, as a multiple of the file's size.
func BenchmarkLoad(b *testing.B) {
	path, size := synthetic(b, 100000)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := cassette.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	c = nil
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		if _, err := cassette.Load(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(size), "heap/file")
	b.ReportMetric(float64(size)/(1<<20), "file-MiB")
}

// BenchmarkRecord compares the same 1,000-call session run live with and
// without recording it (the cassette written by every Close).
func BenchmarkRecord(b *testing.B) {
	const n = 1000
	srv := newCounter().srv
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			factorySession(b, inprocess.New(srv), n)
		}
	})
	b.Run("record", func(b *testing.B) {
		path := tempPath(b, "bench.jsonl")
		for b.Loop() {
			f, err := cassette.Open(path, inprocess.New(srv), &cassette.Options{Mode: cassette.ModeRecord})
			if err != nil {
				b.Fatal(err)
			}
			factorySession(b, f, n)
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpenReplay opens the testdata cassettes, and a 1,000-call one,
// for replay: read, parse, analyse and plan, no session.
func BenchmarkOpenReplay(b *testing.B) {
	big, _ := synthetic(b, 1000)
	for _, path := range []string{"testdata/counter.jsonl", "testdata/http.jsonl", big} {
		name := strings.TrimSuffix(path[strings.LastIndex(path, "/")+1:], ".jsonl")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
