package benchpair

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"
)

// Every side runs once per iteration, and each side follows each other side
// about as often: over the iterations, every ordered pair of sides (the one
// before, the one after) comes within a fifth of the mean. A fixed rotation
// of three sides fails it (a follows c twice as often as b).
func TestRunTakesTurns(t *testing.T) {
	var (
		ops     int
		prev    string
		ran     map[string]int        // in the current iteration
		follows = map[[2]string]int{} // (before, after) → how often
		wrong   []string              // iterations that did not run each side once
	)
	side := func(name string) Side {
		return Side{Name: name, Op: func() {
			if ops%3 == 0 {
				ran = map[string]int{}
			}
			if ran[name]++; ops%3 == 2 && len(ran) != 3 && len(wrong) < 5 {
				wrong = append(wrong, fmt.Sprint(ran))
			}
			if prev != "" && prev != name {
				follows[[2]string{prev, name}]++
			}
			prev = name
			ops++
		}}
	}
	res := testing.Benchmark(func(b *testing.B) {
		ops, prev, follows, wrong = 0, "", map[[2]string]int{}, nil
		Run(b, side("a"), side("b"), side("c"))
	})
	if ops != 3*res.N || len(wrong) > 0 {
		t.Fatalf("ran %d operations in %d iterations, want each side once per iteration; iterations: %v", ops, res.N, wrong)
	}
	sum := 0
	for _, n := range follows {
		sum += n
	}
	mean := float64(sum) / 6
	for _, pair := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "a"}, {"b", "c"}, {"c", "a"}, {"c", "b"}} {
		if n := float64(follows[pair]); n < 0.8*mean || n > 1.2*mean {
			t.Errorf("%s came after %s %v times, want within a fifth of the mean %.0f (all: %v)", pair[1], pair[0], n, mean, follows)
		}
	}
	for _, m := range []string{"a-ns/op", "b-ns/op", "c-ns/op"} {
		if _, ok := res.Extra[m]; !ok {
			t.Errorf("no %s metric in %v", m, res.Extra)
		}
	}
}

// compute is a fixed amount of work, some milliseconds of CPU time
// however loaded the machine (load stretches its wall time, not its CPU
// time), and wait waits 2 ms using next to none.
var (
	compute = func() { sink = sha256.Sum256(work[:]) } // allocating nothing: no GC left behind to count to the other side
	wait    = func() { <-time.After(2 * time.Millisecond) }
	work    [4 << 20]byte
	sink    [32]byte
)

// checkCPU holds the CPU times reported for compute and wait: compute's
// at least half a millisecond, wait's under a quarter of compute's and of
// its own 2 ms.
func checkCPU(t *testing.T, computed, waited time.Duration) {
	t.Helper()
	if computed < 500*time.Microsecond {
		t.Errorf("computing: %v of CPU per op, want at least 0.5ms", computed)
	}
	if waited > computed/4 || waited > 500*time.Microsecond {
		t.Errorf("waiting 2ms: %v of CPU per op (computing: %v), want next to none", waited, computed)
	}
}

// ReportCPU reports CPU time, not wall time: an operation that computes
// reports its CPU time, one that waits next to none.
func TestReportCPUIsCPUTime(t *testing.T) {
	if _, ok := CPU(); !ok {
		t.Skip("the platform does not report CPU time")
	}
	cpuOf := func(op func()) time.Duration {
		r := testing.Benchmark(func(b *testing.B) { ReportCPU(b, op) })
		return time.Duration(r.Extra["cpu-ns/op"])
	}
	checkCPU(t, cpuOf(compute), cpuOf(wait))
}

// Run reports each side's CPU time: a side that computes its CPU time, one
// that waits next to none, though it takes the longer wall time.
func TestRunReportsCPUPerSide(t *testing.T) {
	if _, ok := CPU(); !ok {
		t.Skip("the platform does not report CPU time")
	}
	r := testing.Benchmark(func(b *testing.B) {
		Run(b, Side{Name: "compute", Op: compute}, Side{Name: "wait", Op: wait})
	})
	checkCPU(t, time.Duration(r.Extra["compute-cpu-ns/op"]), time.Duration(r.Extra["wait-cpu-ns/op"]))
	if w := time.Duration(r.Extra["wait-ns/op"]); w < 2*time.Millisecond {
		t.Errorf("waiting 2ms: %v of wall time per op", w)
	}
}
