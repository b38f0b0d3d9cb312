package benchpair

import (
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

// ReportCPU reports CPU time, not wall time: an operation that computes for
// 2 ms reports about 2 ms of CPU, one that waits 2 ms for a timer next to
// none.
func TestReportCPUIsCPUTime(t *testing.T) {
	if _, ok := CPU(); !ok {
		t.Skip("the platform does not report CPU time")
	}
	const d = 2 * time.Millisecond
	cpuOf := func(op func()) time.Duration {
		r := testing.Benchmark(func(b *testing.B) { ReportCPU(b, op) })
		return time.Duration(r.Extra["cpu-ns/op"])
	}
	spin := cpuOf(func() {
		for start := time.Now(); time.Since(start) < d; {
		}
	})
	wait := cpuOf(func() { <-time.After(d) })
	if spin < d/2 || spin > 3*d {
		t.Errorf("computing for %v: %v of CPU per op, want about %v", d, spin, d)
	}
	if wait > d/4 {
		t.Errorf("waiting %v: %v of CPU per op, want next to none", d, wait)
	}
}

// Run reports each side's CPU time: a side that computes for 2 ms about
// 2 ms, one that waits 2 ms next to none, though both take 2 ms.
func TestRunReportsCPUPerSide(t *testing.T) {
	if _, ok := CPU(); !ok {
		t.Skip("the platform does not report CPU time")
	}
	const d = 2 * time.Millisecond
	r := testing.Benchmark(func(b *testing.B) {
		Run(b, Side{Name: "spin", Op: func() {
			for start := time.Now(); time.Since(start) < d; {
			}
		}}, Side{Name: "wait", Op: func() { <-time.After(d) }})
	})
	spin, wait := time.Duration(r.Extra["spin-cpu-ns/op"]), time.Duration(r.Extra["wait-cpu-ns/op"])
	if spin < d/2 || spin > 3*d {
		t.Errorf("computing for %v: %v of CPU per op, want about %v", d, spin, d)
	}
	if wait > d/4 {
		t.Errorf("waiting %v: %v of CPU per op, want next to none", d, wait)
	}
	if w := time.Duration(r.Extra["wait-ns/op"]); w < d {
		t.Errorf("waiting %v: %v of wall time per op, want at least %v", d, w, d)
	}
}
