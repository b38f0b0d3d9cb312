package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// heapPeak samples the heap's live objects until stop is closed and
// returns the most it saw.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// TestRecordProxyMemoryNearBodySize: the recording proxy forwards a
// large body whole, and the heap it takes for it stays near the body's
// size: the proxy's copy and the recording's, each read into a buffer of
// the body's length, and nothing more (whether it is a call is read from
// its envelope, not from a canonical copy).
func TestRecordProxyMemoryNearBodySize(t *testing.T) {
	leakcheck.Check(t)
	if testkit.RaceEnabled {
		t.Skip("the race detector's own allocations blur the measure")
	}
	const size = 32 << 20
	var got atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}))
	defer up.Close()
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	pr, pw := io.Pipe()
	f := &recordFlags{out: filepath.Join(t.TempDir(), "big.jsonl"), upstream: up.URL + "/mcp", listen: "127.0.0.1:0", door: doorFlags{maxBody: cassette.MaxSize}}
	done := make(chan int, 1)
	go func() { done <- recordHTTP(ctx, f, &cassette.Options{}, pw, io.Discard); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	head := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"s":"`
	tail := `"}}}`
	body := []byte(head + strings.Repeat("a", size-len(head)-len(tail)) + tail)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peakc := heapPeak(stop)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSpace(line), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	peak := <-peakc
	runtime.ReadMemStats(&after)
	http.DefaultClient.CloseIdleConnections()
	cancel()
	<-done

	if got.Load() != size {
		t.Errorf("the upstream got %d bytes, want %d", got.Load(), size)
	}
	mib := func(n uint64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
	grown := peak - min(peak, before.HeapAlloc)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("body %s: peak heap +%s, allocated %s", mib(size), mib(grown), mib(alloc))
	// Two copies (64 MiB for 32) and a margin; canonicalising the body to
	// tell whether it is a call took two more (128 MiB).
	const limit = 5 * size / 2
	if grown > limit || alloc > limit {
		t.Errorf("a %s body took +%s of heap at its peak and %s allocated; want at most %s", mib(size), mib(grown), mib(alloc), mib(limit))
	}
}
