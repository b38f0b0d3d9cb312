// Command ratios reads the benchmark results scripts/bench collects (lines
// of "ROUND PACKAGE go-test-bench-line") and prints, for each figure, the
// median of each side and the median of the rounds' ratios, with their
// range. The sides of a figure are metrics of one paired benchmark
// (internal/benchpair), which measures them call by call in turn, so that
// a machine shared with other work slows both alike.
//
//	scripts/bench                        # builds, runs the rounds, prints the table
//	go run ./ratios < results.txt        # (in bench/) the table of collected results
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A figure is one line of the table: this module's side of a paired
// benchmark (internal/benchpair) over a baseline's, two metrics of the
// same result line, measured in the same moments (lower is better).
type figure struct {
	name     string
	bench    string // PACKAGE/Benchmark, GOMAXPROCS suffix dropped
	ours     string // a metric, NAME-ns/op (wall time) or NAME-cpu-ns/op (the process's CPU time), or the mean of several (A+B)
	baseline string
}

var figures = []figure{
	// Each transport has two sides in the stdio and HTTP benchmarks, so
	// that the code of each runs as often (see their docs); a figure is the
	// mean of this module's two over the mean of the go-sdk's two, a
	// control one go-sdk side over the other.
	{"stdio connect + list + close / go-sdk CommandTransport", "stdio/ConnectListClosePaired", "looprig-ns/op+looprig-again-ns/op", "gosdk-ns/op+gosdk-again-ns/op"},
	{"control: stdio, go-sdk / go-sdk", "stdio/ConnectListClosePaired", "gosdk-again-ns/op", "gosdk-ns/op"},
	{"stdio connect + list + close: CPU time / go-sdk's", "stdio/ConnectListClosePaired", "looprig-cpu-ns/op+looprig-again-cpu-ns/op", "gosdk-cpu-ns/op+gosdk-again-cpu-ns/op"},
	{"control: stdio's CPU time, go-sdk / go-sdk", "stdio/ConnectListClosePaired", "gosdk-again-cpu-ns/op", "gosdk-cpu-ns/op"},
	{"Streamable HTTP call, 2025-11-25 / go-sdk StreamableClientTransport", "streamablehttp/CallToolPaired", "looprig-ns/op+looprig-again-ns/op", "gosdk-ns/op+gosdk-again-ns/op"},
	{"control: the 2025-11-25 call, go-sdk / go-sdk", "streamablehttp/CallToolPaired", "gosdk-again-ns/op", "gosdk-ns/op"},
	{"Streamable HTTP call, 2026-07-28 / go-sdk StreamableClientTransport", "streamablehttp/CallToolPaired20260728", "looprig-ns/op+looprig-again-ns/op", "gosdk-ns/op+gosdk-again-ns/op"},
	{"control: the 2026-07-28 call, go-sdk / go-sdk", "streamablehttp/CallToolPaired20260728", "gosdk-again-ns/op", "gosdk-ns/op"},
	{"Streamable HTTP call, 2025-11-25: CPU time / go-sdk's", "streamablehttp/CallToolPaired", "looprig-cpu-ns/op+looprig-again-cpu-ns/op", "gosdk-cpu-ns/op+gosdk-again-cpu-ns/op"},
	{"control: the 2025-11-25 call's CPU time, go-sdk / go-sdk", "streamablehttp/CallToolPaired", "gosdk-again-cpu-ns/op", "gosdk-cpu-ns/op"},
	{"Streamable HTTP call, 2026-07-28: CPU time / go-sdk's", "streamablehttp/CallToolPaired20260728", "looprig-cpu-ns/op+looprig-again-cpu-ns/op", "gosdk-cpu-ns/op+gosdk-again-cpu-ns/op"},
	{"control: the 2026-07-28 call's CPU time, go-sdk / go-sdk", "streamablehttp/CallToolPaired20260728", "gosdk-again-cpu-ns/op", "gosdk-cpu-ns/op"},
	{"in-process call, 2026-07-28 / go-sdk NewInMemoryTransports", "bench/CallToolPaired", "looprig-mcptest/2026-07-28-ns/op", "go-sdk-inmemory/2026-07-28-ns/op"},
	{"in-process call, 2025-11-25 / go-sdk NewInMemoryTransports", "bench/CallToolPaired", "looprig-mcptest/2025-11-25-ns/op", "go-sdk-inmemory/2025-11-25-ns/op"},
	{"in-process call, 2026-07-28 / mcp-go mcptest", "bench/CallToolPaired", "looprig-mcptest/2026-07-28-ns/op", "mcp-go-mcptest-ns/op"},
	{"in-process call, 2025-11-25 / mcp-go mcptest", "bench/CallToolPaired", "looprig-mcptest/2025-11-25-ns/op", "mcp-go-mcptest-ns/op"},
	{"1,000-call session: replay / live (go-sdk NewInMemoryTransports)", "cassette/SessionPaired", "replay-ns/op", "live-go-sdk-inmemory-ns/op"},
}

// levels are figures with no baseline: a median of one metric.
var levels = []struct{ name, bench, metric string }{
	{"cassette load, 10^5 calls: throughput", "cassette/Load", "MB/s"},
	{"cassette load, 10^5 calls: heap held / file size", "cassette/Load", "heap/file"},
	{"cassette load, 10^5 calls: file size (MiB)", "cassette/Load", "file-MiB"},
}

// results maps benchmark → round → metric → value.
type results map[string]map[int]map[string]float64

var procs = regexp.MustCompile(`-\d+$`)

func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.HasPrefix(f[2], "Benchmark") {
			continue
		}
		round, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("round %q: %w", f[0], err)
		}
		name := f[1] + "/" + procs.ReplaceAllString(strings.TrimPrefix(f[2], "Benchmark"), "")
		m := map[string]float64{}
		for i := 4; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %w", name, f[i], err)
			}
			m[f[i+1]] = v
		}
		if res[name] == nil {
			res[name] = map[int]map[string]float64{}
		}
		res[name][round] = m
	}
	return res, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// value returns a round's value of metric: one metric, or the mean of
// several joined by "+", if the round measured each of them.
func value(m map[string]float64, metric string) (float64, bool) {
	parts := strings.Split(metric, "+")
	sum := 0.0
	for _, p := range parts {
		x, ok := m[p]
		if !ok {
			return 0, false
		}
		sum += x
	}
	return sum / float64(len(parts)), true
}

func values(res results, bench, metric string) []float64 {
	var v []float64
	for _, m := range res[bench] {
		if x, ok := value(m, metric); ok {
			v = append(v, x)
		}
	}
	return v
}

// ratios returns ours/baseline for every round that measured both.
func ratios(res results, f figure) []float64 {
	var v []float64
	for _, m := range res[f.bench] {
		o, ok := value(m, f.ours)
		b, ok2 := value(m, f.baseline)
		if ok && ok2 && b > 0 {
			v = append(v, o/b)
		}
	}
	return v
}

func human(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	}
	return fmt.Sprintf("%.0fns", ns)
}

func print(w io.Writer, res results) {
	fmt.Fprintln(w, "| figure | this module | baseline | ratio (median) | ratio (range) | rounds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, f := range figures {
		r := ratios(res, f)
		if len(r) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f× | %.2f–%.2f× | %d |\n", f.name,
			human(median(values(res, f.bench, f.ours))), human(median(values(res, f.bench, f.baseline))),
			median(r), slices.Min(r), slices.Max(r), len(r))
	}
	for _, l := range levels {
		v := values(res, l.bench, l.metric)
		if len(v) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.3g | | | %.3g–%.3g | %d |\n", l.name, median(v), slices.Min(v), slices.Max(v), len(v))
	}
}

func main() {
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
	print(os.Stdout, res)
}
