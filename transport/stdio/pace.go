package stdio

import "time"

// The pace of the descendant scans while a child runs (see track).
const (
	// firstScan is the wait before the first scan after the child starts
	// or is sent a request.
	firstScan = time.Millisecond

	// scanBudget bounds the share of time that goes to scanning: after a
	// scan, the next waits at least scanBudget times what it took, so
	// scans take at most 1/scanBudget of one CPU however loaded the
	// machine is (a loaded machine makes each scan slower, and so rarer).
	scanBudget = 32
)

// A pace schedules the tracker's scans: soon after each event (the
// child's start, a request sent to it, when a server typically starts its
// helpers), then at a slowing pace, doubling down to one scan every
// interval; never sooner after a scan than scanBudget times its cost.
type pace struct {
	interval time.Duration // the slowest pace
	gap      time.Duration // the wait after the next scan, before the cost bound
	cost     time.Duration // what the latest scan took
	ended    time.Time     // when it ended
}

func newPace(interval time.Duration) *pace { return &pace{interval: interval, gap: firstScan} }

// start returns the wait before the first scan.
func (p *pace) start() time.Duration { return firstScan }

// event restarts the slowing pace at now and returns the wait before the
// next scan.
func (p *pace) event(now time.Time) time.Duration {
	p.gap = firstScan
	return max(firstScan, scanBudget*p.cost-now.Sub(p.ended))
}

// scanned records a scan that began at start and ended at end, and
// returns the wait before the next one.
func (p *pace) scanned(start, end time.Time) time.Duration {
	p.cost, p.ended = end.Sub(start), end
	wait := max(p.gap, scanBudget*p.cost)
	p.gap = min(2*p.gap, p.interval)
	return wait
}
