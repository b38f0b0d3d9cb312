package hostile_test

import (
	"context"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBytesPerNote is the most the client's read path may allocate for one
// small notification (about 110 bytes) that a handler of its own takes.
// The go-sdk's JSON decoder allocates a 32 KiB buffer for every value it
// decodes, so a notification decoded by it even once (its message, or its
// params for the handler) costs more than twice this bound; read once by
// this module and handed to the client's queue it costs about 1–3 KiB.
const maxBytesPerNote = 16 << 10

// A flood of small notifications/message costs the client at most
// maxBytesPerNote allocated per notification on every transport, the peer
// in a child process so that only the client's allocations are counted:
// each is read once, the client's Logging notifications taken before the
// go-sdk decodes them again. It counts bytes allocated, not time.
func TestNotificationReadAllocations(t *testing.T) {
	const n = 2_000
	for _, kind := range allKinds {
		t.Run(kind.String(), func(t *testing.T) {
			leakcheck.Check(t)
			def := childPeer(t, kind)
			def.Limits = client.Limits{MaxQueuedNotifications: 2 * n} // none dropped: each is handled
			var handled atomic.Int64
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := client.Connect(ctx, def, &client.Handlers{
				//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
				Logging: func(context.Context, *mcp.LoggingMessageParams) { handled.Add(1) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// A first flood grows what the read path keeps (its buffers,
			// the queue) to its size.
			if _, err := c.CallTool(ctx, "flood", map[string]any{"n": n}); err != nil {
				t.Fatal(err)
			}
			perNote := allocated(func() {
				if _, err := c.CallTool(ctx, "flood", map[string]any{"n": n}); err != nil {
					t.Fatal(err)
				}
			}) / n
			t.Logf("%v: %.1f KiB allocated per notification", kind, float64(perNote)/1024)
			if perNote > maxBytesPerNote {
				t.Errorf("%v: the client allocated %d bytes per notification, want at most %d: a notification is decoded more than once", kind, perNote, maxBytesPerNote)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if got, want := handled.Load()+c.DroppedNotifications(), int64(2*n); got != want {
				t.Errorf("%v: %d notifications handled or dropped, want %d", kind, got, want)
			}
		})
	}
}

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	f()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// maxPeakHeap bounds how far the client's live heap rises under a flood
// to a slow handler: what its queue holds (MaxQueuedNotifications of about
// 110 bytes each, decoded) and the buffers of one read. A read path that
// hands the go-sdk its notifications undecoded keeps the go-sdk's 32 KiB
// decoding buffers alive for up to the pacing window (256) of them, about
// 8 MiB, twice this bound; diverted, the peak is 0.6–2 MiB.
const maxPeakHeap = 4 << 20

// A flood of 50,000 notifications/message to a Logging handler taking
// 100µs each keeps the client's live heap within maxPeakHeap of where it
// was, on every transport, the peer in a child process. The peak is the
// highest live heap a garbage collection found, sampled every millisecond
// (a sample can only miss a peak, never make one up).
func TestNotificationFloodPeakHeap(t *testing.T) {
	if testkit.RaceEnabled {
		t.Skip("too slow under the race detector")
	}
	for _, kind := range allKinds {
		t.Run(kind.String(), func(t *testing.T) {
			leakcheck.Check(t)
			f := floodRead(t, childPeer(t, kind), 50_000, 100*time.Microsecond)
			t.Logf("%v: %v", kind, f)
			if f.peakLive > maxPeakHeap {
				t.Errorf("%v: the live heap rose %d bytes under the flood, want at most %d", kind, f.peakLive, maxPeakHeap)
			}
		})
	}
}
