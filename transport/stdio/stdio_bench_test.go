package stdio_test

// The benchmarks compare this package with the go-sdk's mcp.CommandTransport
// on the same child (the test binary serving a go-sdk server). Run
//
//	go test -run '^$' -bench ConnectListClose -benchtime 100x -count 3 ./transport/stdio/
//
// BenchmarkCloseStubborn uses each transport's default graces, so one
// iteration takes seconds (go-sdk: 5s+5s): it always runs once per count.

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchTransports returns a new transport per iteration for the child in
// mode, from this package and from the go-sdk, with the same environment.
func benchTransports(b *testing.B, mode string, extra map[string]string) map[string]func() mcp.Transport {
	f := newFactory(b, mode, &stdio.Options{Env: extra})
	exe := testExe(b)
	env := []string{childEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	for _, name := range stdio.DefaultInheritEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	slices.Sort(env)
	return map[string]func() mcp.Transport{
		"looprig": func() mcp.Transport {
			tr, err := f.Transport()
			if err != nil {
				b.Fatal(err)
			}
			return tr
		},
		"gosdk": func() mcp.Transport {
			cmd := exec.Command(exe)
			cmd.Env = env
			return &mcp.CommandTransport{Command: cmd}
		},
	}
}

// BenchmarkConnectListClose starts the child, connects (initialize), lists
// its tools and closes, through this package and through the go-sdk's
// CommandTransport in turn: each iteration runs both, in alternating order,
// so that a shared machine's load falls on both alike. It reports the median
// of each (looprig-ns, gosdk-ns) and the median of the iterations' ratios
// (looprig/gosdk: the two runs of an iteration are next to each other in
// time, so a change in the machine's load between iterations cancels out);
// ns/op is the pair.
func BenchmarkConnectListClose(b *testing.B) {
	ctx := context.Background()
	trs := benchTransports(b, "serve", nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	names := []string{"looprig", "gosdk"}
	times := map[string][]time.Duration{}
	for i := 0; b.Loop(); i++ {
		for j := range names {
			name := names[(i+j)%len(names)]
			start := time.Now()
			cs, err := client.Connect(ctx, trs[name](), nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				b.Fatal(err)
			}
			if err := cs.Close(); err != nil {
				b.Fatal(err)
			}
			times[name] = append(times[name], time.Since(start))
		}
	}
	ratios := make([]float64, len(times["looprig"]))
	for i := range ratios {
		ratios[i] = float64(times["looprig"][i]) / float64(times["gosdk"][i])
	}
	b.ReportMetric(float64(median(times["looprig"]).Nanoseconds()), "looprig-ns")
	b.ReportMetric(float64(median(times["gosdk"]).Nanoseconds()), "gosdk-ns")
	b.ReportMetric(median(ratios), "looprig/gosdk")
}

// median returns the median of xs (which it sorts), or 0 for none.
func median[T time.Duration | float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// Close a child that ignores both the end of stdin and SIGTERM, with each
// transport's default graces.
func BenchmarkCloseStubborn(b *testing.B) {
	ctx := context.Background()
	_, env := recordFile(b)
	trs := benchTransports(b, "stubborn", env)
	for _, name := range []string{"looprig", "gosdk"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				conn, err := trs[name]().Connect(ctx)
				if err != nil {
					b.Fatal(err)
				}
				conn.Close()
			}
		})
	}
}
