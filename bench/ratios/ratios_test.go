package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Ratios are taken within a round, between the two metrics of one paired
// result (or the means of two, each transport's two sessions: round 3's
// 500 and 700 are 600), and the medians are of the rounds: the middle one
// of three, the mean of the middle two of four. A round that lacks one of
// a figure's metrics (round 4) does not count to it.
func TestTable(t *testing.T) {
	in := `1 streamablehttp BenchmarkCallToolPaired-2   2000   900 ns/op   500 gosdk-ns/op   400 looprig-ns/op   500 gosdk-again-ns/op   400 looprig-again-ns/op   800 gosdk-cpu-ns/op   400 looprig-cpu-ns/op   800 gosdk-again-cpu-ns/op   400 looprig-again-cpu-ns/op   10 B/op   1 allocs/op
2 streamablehttp BenchmarkCallToolPaired-2   2000   2100 ns/op   1000 gosdk-ns/op   1100 looprig-ns/op   1000 gosdk-again-ns/op   1100 looprig-again-ns/op
3 streamablehttp BenchmarkCallToolPaired-2   2000   1200 ns/op   600 gosdk-ns/op   500 looprig-ns/op   600 gosdk-again-ns/op   700 looprig-again-ns/op
4 streamablehttp BenchmarkCallToolPaired-2   2000   1200 ns/op   600 gosdk-ns/op   500 looprig-ns/op
1 cassette BenchmarkLoad-2   5   300000000 ns/op   90.00 MB/s   27.04 file-MiB   1.600 heap/file
2 cassette BenchmarkLoad-2   5   200000000 ns/op   130.00 MB/s   27.04 file-MiB   1.700 heap/file
noise that is not a result
`
	res, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	print(&b, res)
	want := `| figure | this module | baseline | ratio (median) | ratio (range) | rounds |
|---|---|---|---|---|---|
| Streamable HTTP call, 2025-11-25 / go-sdk StreamableClientTransport | 600ns | 600ns | 1.00× | 0.80–1.10× | 3 |
| control: the 2025-11-25 call, go-sdk / go-sdk | 600ns | 600ns | 1.00× | 1.00–1.00× | 3 |
| Streamable HTTP call, 2025-11-25: CPU time / go-sdk's | 400ns | 800ns | 0.50× | 0.50–0.50× | 1 |
| control: the 2025-11-25 call's CPU time, go-sdk / go-sdk | 800ns | 800ns | 1.00× | 1.00–1.00× | 1 |
| cassette load, 10^5 calls: throughput | 110 | | | 90–130 | 2 |
| cassette load, 10^5 calls: heap held / file size | 1.65 | | | 1.6–1.7 | 2 |
| cassette load, 10^5 calls: file size (MiB) | 27 | | | 27–27 | 2 |
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table mismatch (-want +got):\n%s", diff)
	}
}

func TestParseRefusesABadRound(t *testing.T) {
	if _, err := parse(strings.NewReader("x stdio BenchmarkConnectListClosePaired-2 40 10 ns/op\n")); err == nil {
		t.Error("parse accepted round x")
	}
}
