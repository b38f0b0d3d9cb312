package hostile_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readFigures is what the client's read path cost under one flood, counted
// in this process only (the peer is a child process on every transport).
type readFigures struct {
	perNote  float64 // bytes allocated per notification, from the call to its answer
	peakLive int64   // the highest live heap a GC saw during the flood, over the live heap before it
	floodFigures
}

func (f readFigures) String() string {
	return fmt.Sprintf("%.1f KiB allocated per notification, peak live heap +%.1f MiB; %v",
		f.perNote/1024, float64(f.peakLive)/(1<<20), f.floodFigures)
}

// TestFloodFigures prints what a flood of 50,000 and 150,000
// notifications/message of about 110 bytes, before the answer, to a
// Logging handler taking 100µs each costs the client on every transport:
// the bytes its read path allocates per notification, the peak of its live
// heap, and what flood reports. The peer is a child process on every
// transport, so that only the client's allocations are counted. It runs
// only when HOSTILE_FLOOD_FIGURES is set (to 1, or to the transports to
// measure: "stdio,streamablehttp,sse"): it measures, it proves nothing.
//
//	HOSTILE_FLOOD_FIGURES=1 go test -run TestFloodFigures -v ./test/hostile/
func TestFloodFigures(t *testing.T) {
	which := os.Getenv("HOSTILE_FLOOD_FIGURES")
	if which == "" {
		t.Skip("set HOSTILE_FLOOD_FIGURES=1 (or a list of transports: stdio,sse) to measure")
	}
	for _, kind := range allKinds {
		if which != "1" && !slices.Contains(strings.Split(which, ","), kind.String()) {
			continue
		}
		for _, n := range []int{50_000, 150_000} {
			def := childPeer(t, kind)
			f := floodRead(t, def, n, 100*time.Microsecond)
			t.Logf("%v, %d notifications: %v", kind, n, f)
		}
	}
}

// floodRead is floodDef, counting the bytes allocated and sampling the live
// heap at every GC while the flood runs.
func floodRead(t *testing.T, def client.Definition, n int, delay time.Duration) readFigures {
	t.Helper()
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
	before := int64(liveHeap())
	metrics.Read(samples)
	allocs := samples[0].Value.Uint64()
	var peak atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := int64(s[0].Value.Uint64()); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f := floodDef(t, def, n, delay, client.Limits{})
	close(stop)
	<-stopped
	metrics.Read(samples)
	return readFigures{
		perNote:      float64(samples[0].Value.Uint64()-allocs) / float64(n),
		peakLive:     peak.Load() - before,
		floodFigures: f,
	}
}

// childPeer is floodPeer with the server in a child process on every
// transport: the stdio child, or the test binary serving newServer over
// Streamable HTTP or legacy SSE on loopback (see httpPeers).
func childPeer(t *testing.T, kind transport.Kind) client.Definition {
	t.Helper()
	def := floodPeer(t, kind)
	var err error
	switch kind {
	case transport.KindStreamableHTTP:
		def.Transport, err = streamablehttp.New(startHTTPPeer(t, "sdk-streamable"), nil)
	case transport.KindSSE:
		def.Transport, err = sse.New(startHTTPPeer(t, "sdk-sse"), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// startHTTPPeer starts the test binary as the HTTP peer name and returns
// its URL. The child serves until its stdin ends, which cleanup does.
func startHTTPPeer(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+name, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%s peer: reading its URL: %v", name, err)
	}
	return strings.TrimSpace(url)
}

// httpPeers are the HTTP peers the test binary can be (see stdioPeers): it
// prints its URL on a line and serves newServer until its stdin ends.
var httpPeers = map[string]func(*mcp.Server) http.Handler{
	"sdk-streamable": func(srv *mcp.Server) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	},
	"sdk-sse": func(srv *mcp.Server) http.Handler {
		return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	},
}

// serveHTTPPeer runs the HTTP peer h.
func serveHTTPPeer(h func(*mcp.Server) http.Handler) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := &http.Server{Handler: h(newServer(nil))}
	go func() {
		buf := make([]byte, 512)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				hs.Close()
				return
			}
		}
	}()
	fmt.Printf("http://%s\n", ln.Addr())
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
