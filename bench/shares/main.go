// Command shares reads a profile's samples, as `go tool pprof -traces`
// prints them, and prints what share of the total each module has: each
// sample counts for the innermost frame of its stack that belongs to a
// module (this one, the go-sdk, the go-sdk's JSON decoder, jsonschema-go,
// mcp-go, the benchmark), so that the standard library's and the runtime's
// work is counted for the module that asked for it. Samples with no module
// frame at all (the garbage collector's workers, the scheduler) are shown
// apart. This module's share is broken down by package.
//
//	go test -run '^$' -bench 'CallTool/looprig-mcptest/2026' -benchtime 30000x -cpuprofile cpu.out -memprofile mem.out
//	go tool pprof -traces bench.test cpu.out | go run ./shares
//	go tool pprof -sample_index=alloc_space -traces bench.test mem.out | go run ./shares
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// modules in the order a frame is matched against them.
var modules = []struct{ name, prefix string }{
	{"this module", "github.com/looprig/mcp/"},
	{"go-sdk's JSON decoder (segmentio)", "github.com/segmentio/"},
	{"go-sdk", "github.com/modelcontextprotocol/go-sdk/"},
	{"jsonschema-go", "github.com/google/jsonschema-go/"},
	{"mcp-go", "github.com/mark3labs/mcp-go/"},
	{"the benchmark", "example.com/bench"},
}

const none = "no module frame (garbage collector, scheduler)"

// value reads a sample's value: a duration (10ms, 1.5s) or a size (32kB).
func value(s string) (float64, error) {
	units := []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"s", 1e9}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			return v * u.scale, err
		}
	}
	return strconv.ParseFloat(s, 64)
}

// attribute returns the module a stack (innermost frame first) counts for,
// and the package when it is this module.
func attribute(frames []string) (module, pkg string) {
	for _, f := range frames {
		for i, m := range modules {
			if !strings.HasPrefix(f, m.prefix) {
				continue
			}
			if i == 0 {
				pkg = packageOf(strings.TrimPrefix(f, m.prefix))
			}
			return m.name, pkg
		}
	}
	return none, ""
}

// packageOf returns the package path of a function's name: what precedes
// the first dot after the last slash.
func packageOf(fn string) string {
	slash := strings.LastIndex(fn, "/") + 1
	if dot := strings.Index(fn[slash:], "."); dot >= 0 {
		return fn[:slash+dot]
	}
	return fn
}

// read parses pprof's -traces output: samples separated by a line of
// dashes, each a value and a frame on its first line, a frame on each
// line after (label lines, "bytes: …", skipped).
func read(r io.Reader) (byModule, byPackage map[string]float64, total float64, err error) {
	byModule, byPackage = map[string]float64{}, map[string]float64{}
	var frames []string
	var v float64
	flush := func() {
		if len(frames) > 0 {
			m, p := attribute(frames)
			byModule[m] += v
			if p != "" {
				byPackage[p] += v
			}
			total += v
		}
		frames = frames[:0]
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inSample := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "-----------+"):
			flush()
			inSample = true
			continue
		case !inSample:
			continue
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasSuffix(f[0], ":"):
		case len(frames) == 0 && len(f) >= 2:
			if v, err = value(f[0]); err != nil {
				return nil, nil, 0, fmt.Errorf("sample value %q: %w", f[0], err)
			}
			frames = append(frames, f[1])
		default:
			frames = append(frames, f[0])
		}
	}
	flush()
	return byModule, byPackage, total, sc.Err()
}

func printShares(w io.Writer, title string, m map[string]float64, total float64) {
	fmt.Fprintf(w, "| %s | share |\n|---|---|\n", title)
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %.1f%% |\n", k, 100*m[k]/total)
	}
}

func main() {
	byModule, byPackage, total, err := read(os.Stdin)
	if err == nil && total == 0 {
		err = fmt.Errorf("no samples read: give it `go tool pprof -traces` output")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shares:", err)
		os.Exit(1)
	}
	printShares(os.Stdout, "module (innermost module frame)", byModule, total)
	fmt.Println()
	printShares(os.Stdout, "this module, by package", byPackage, total)
}
