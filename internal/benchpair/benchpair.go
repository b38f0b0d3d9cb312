// Package benchpair runs the sides of a comparison in turn within one
// benchmark: each iteration calls every side's operation once, in an order
// shuffled anew each iteration, and each side's mean time is reported as a
// metric of its own ("NAME-ns/op"). Sides measured a moment apart, many times over, are slowed
// alike by whatever else the machine does, which sides measured one after
// the other (sub-benchmarks, separate runs) are not: on a shared machine
// the ratio of the two metrics is the fair figure.
//
//	benchpair.Run(b,
//		benchpair.Side{Name: "looprig", Op: func() { call(ours) }},
//		benchpair.Side{Name: "gosdk", Op: func() { call(theirs) }},
//	)
package benchpair

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A Side is one side of a comparison: Op is one operation, Name what its
// metric is called.
type Side struct {
	Name string
	Op   func()
}

// Run runs the sides in turn for b's iterations and reports each side's
// mean duration of Op as NAME-ns/op; ns/op is the sum of the sides'. Where
// the platform tells the process's CPU time (CPU), it reports too the mean
// CPU time the process used during each side's Op as NAME-cpu-ns/op: what
// the operation costs, whichever goroutine does the work (a loopback
// server in the same binary, a stream drained after the answer), where its
// wall time says how long the caller waited. Work left behind by one side
// and done during another's Op counts to the other, as in wall time, and
// the shuffled turns spread it alike. A child process's CPU time is not
// the process's: for a side that starts one it is the parent's share.
//
// The order is shuffled each iteration (by a generator of fixed seed: every
// run takes the same turns), so that each side follows each other side as
// often. An operation may leave work behind it when it returns (a response
// stream drained, a connection put back), which the next operation's time
// pays for; a fixed rotation of three sides or more would have each side
// follow mostly one other, and pay mostly for that one's leftovers.
func Run(b *testing.B, sides ...Side) {
	b.Helper()
	total := make([]time.Duration, len(sides))
	order := make([]int, len(sides))
	for i := range order {
		order[i] = i
	}
	cpu := make([]time.Duration, len(sides))
	_, withCPU := CPU()
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for b.Loop() {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			var used time.Duration
			if withCPU {
				used, _ = CPU() // read outside the wall time
			}
			start := time.Now()
			sides[k].Op()
			total[k] += time.Since(start)
			if withCPU {
				after, _ := CPU()
				cpu[k] += after - used
			}
		}
		n++
	}
	for i, s := range sides {
		b.ReportMetric(float64(total[i].Nanoseconds())/float64(max(n, 1)), s.Name+"-ns/op")
		if withCPU {
			b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(max(n, 1)), s.Name+"-cpu-ns/op")
		}
	}
}

// ReportCPU runs op for b's iterations and reports the process's CPU time
// per iteration as cpu-ns/op (where the platform tells it, CPU): the work
// an operation costs, whichever goroutine or core does it, which its wall
// time (ns/op) does not say when the work runs in parallel or waits.
func ReportCPU(b *testing.B, op func()) {
	b.Helper()
	before, ok := CPU()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	if after, ok2 := CPU(); ok && ok2 && n > 0 {
		b.ReportMetric(float64((after-before).Nanoseconds())/float64(n), "cpu-ns/op")
	}
}
