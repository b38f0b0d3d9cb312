package hostile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/clientseam"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodFigures is what one flood measured.
type floodFigures struct {
	heap    int64         // live heap when the answer arrived, over the live heap before the call
	close   time.Duration // how long Close took
	handled int64         // notifications the Logging handler received
	dropped int64         // notifications the client dropped and counted
	// waiting is how many notifications were neither handled (begun) nor
	// dropped when the answer arrived: at most the client's queue, what the
	// go-sdk had read and not yet handed over (the pacing window), and the
	// one running.
	waiting int64
}

func (f floodFigures) String() string {
	return fmt.Sprintf("heap +%.1f MiB, Close %v, %d handled, %d dropped, %d waiting at the answer", float64(f.heap)/(1<<20), f.close.Round(time.Millisecond), f.handled, f.dropped, f.waiting)
}

// flood connects to newServer over kind, calls "flood" with n, whose
// notifications a Logging handler takes delay each to handle, and measures
// the live heap once the answer has arrived, and Close.
func flood(t testing.TB, kind transport.Kind, n int, delay time.Duration, limits client.Limits) floodFigures {
	t.Helper()
	return floodDef(t, floodPeer(t, kind), n, delay, limits)
}

// floodPeer is sdkPeer at the revision the flood is measured at.
func floodPeer(t testing.TB, kind transport.Kind) client.Definition {
	t.Helper()
	def := sdkPeer(t, kind, nil)
	if kind != transport.KindSSE {
		// Logging at 2026-07-28 is asked for per request, which the client
		// does not do yet; 2025-11-25 sets the level once.
		def.Profile = client.Profile20251125
	}
	return def
}

// floodDef is flood through def.
func floodDef(t testing.TB, def client.Definition, n int, delay time.Duration, limits client.Limits) floodFigures {
	t.Helper()
	if os.Getenv("HOSTILE_HEAP_PROFILE") != "" {
		runtime.MemProfileRate = 1
	}
	def.Limits = limits
	var handled atomic.Int64
	c, err := client.Connect(context.Background(), def, &client.Handlers{
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
		Logging: func(context.Context, *mcp.LoggingMessageParams) {
			handled.Add(1)
			time.Sleep(delay) // the handler's own work
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	if _, err := c.CallTool(context.Background(), "flood", map[string]any{"n": n}); err != nil {
		c.Close()
		t.Fatal(err)
	}
	var f floodFigures
	f.waiting = int64(n) - handled.Load() - c.DroppedNotifications()
	f.heap = int64(liveHeap()) - int64(before)
	if p := os.Getenv("HOSTILE_HEAP_PROFILE"); p != "" {
		hf, _ := os.Create(p)
		pprof.WriteHeapProfile(hf)
		hf.Close()
	}
	start := time.Now()
	c.Close()
	f.close = time.Since(start)
	f.handled = handled.Load()
	f.dropped = c.DroppedNotifications()
	return f
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A peer that sends 50,000 notifications/message (about 5.5 MB) before its
// answer, to a Logging handler that takes 100µs each, grows the client's
// live heap by a bounded amount, and Close returns within its drain bound
// instead of after the backlog; every notification is either handled or
// counted as dropped. Without the bound (issue 12) the heap grew 13–14 MiB
// and Close took 45–52 s on every transport; with it, 0.2–4 MiB (the queue
// of MaxQueuedNotifications, and what the go-sdk has decoded and not yet
// handed over, which no longer waits for a handler) and the drain bound.
//
// It is skipped under the race detector, which makes the go-sdk's decoding
// ten times slower; client's TestNotificationQueueBoundary covers the queue
// there.
func TestNotificationFloodBounded(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("too slow under the race detector")
	}
	const n = 50_000
	const drain = 200 * time.Millisecond
	for _, kind := range allKinds {
		t.Run(kind.String(), func(t *testing.T) {
			leakcheck.Check(t)
			f := flood(t, kind, n, 100*time.Microsecond, client.Limits{DrainTimeout: drain})
			checkFlood(t, f, n, drain)
		})
	}
	// A cassette's replay of a recorded flood over Streamable HTTP is a
	// Streamable HTTP connection the go-sdk reads as fast as the cassette
	// hands it events: it is paced as a live one is, since it replays
	// through this module's streamablehttp transport (clientseam.Pacer).
	t.Run("cassette replay", func(t *testing.T) {
		leakcheck.Check(t)
		path := filepath.Join(t.TempDir(), "flood.jsonl")
		def := floodPeer(t, transport.KindStreamableHTTP)
		rec, err := cassette.Open(path, def.Transport, &cassette.Options{Mode: cassette.ModeRecord})
		if err != nil {
			t.Fatal(err)
		}
		def.Transport = rec
		floodDef(t, def, n, 0, client.Limits{MaxQueuedNotifications: n})
		if err := rec.Close(); err != nil {
			t.Fatalf("recording Close: %v", err)
		}
		play, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay})
		if err != nil {
			t.Fatal(err)
		}
		def.Transport = play
		if tr := replayTransport(t, path); !isPacer(tr) {
			t.Errorf("the replaying factory's transport is a %T, not a clientseam.Pacer: the go-sdk reads it unpaced", tr)
		}
		f := floodDef(t, def, n, 100*time.Microsecond, client.Limits{DrainTimeout: drain})
		checkFlood(t, f, n, drain)
		if err := play.Close(); err != nil {
			t.Errorf("replaying Close: %v", err)
		}
	})
}

// replayTransport returns the transport of a replay of the cassette at
// path, in a factory of its own (a factory makes one session).
func replayTransport(t *testing.T, path string) mcp.Transport {
	t.Helper()
	f, err := cassette.Open(path, nil, &cassette.Options{Mode: cassette.ModeReplay, AllowUnused: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	tr, err := f.Transport()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func isPacer(tr mcp.Transport) bool {
	_, ok := tr.(clientseam.Pacer)
	return ok
}

// checkFlood checks a flood's figures against its bounds.
func checkFlood(t *testing.T, f floodFigures, n int, drain time.Duration) {
	t.Helper()
	t.Logf("%d notifications: %v", n, f)
	if limit := int64(8 << 20); f.heap > limit {
		t.Errorf("live heap grew by %d bytes under the flood, want at most %d", f.heap, limit)
	}
	// The drain bound, HandlerGrace and the child's exit at the end of its
	// input, ten times over.
	if limit := 10 * (drain + client.HandlerGrace + 200*time.Millisecond); f.close > limit {
		t.Errorf("Close took %v, want well under %v", f.close, limit)
	}
	// Counted at the client's queue, not the heap, which a queue of
	// 50,000 small notifications grows by less than the slack above: every
	// notification had been read when the answer arrived, and those
	// neither handled nor dropped waited in the queue or in the go-sdk's
	// pacing window (256). Without the bound, tens of thousands waited.
	if limit := int64(client.DefaultMaxQueuedNotifications + 1024); f.waiting > limit {
		t.Errorf("%d notifications waited to be handled when the answer arrived, want at most %d (MaxQueuedNotifications and the pacing window)", f.waiting, limit)
	}
	if f.handled+f.dropped != int64(n) {
		t.Errorf("%d handled + %d dropped = %d, want every one of the %d sent", f.handled, f.dropped, f.handled+f.dropped, n)
	}
}
