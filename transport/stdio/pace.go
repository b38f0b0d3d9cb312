package stdio

import (
	"sync"
	"time"
)

// The pace of the looks for a child's descendants while it runs (see
// proc.track and proc.heard).
const (
	// firstScan is how long after the latest look the next is due once
	// the child has started or been sent a request.
	firstScan = time.Millisecond

	// scanBudget bounds the share of time that goes to looking. After a
	// look, the next waits at least scanBudget times what it took. So
	// looks take at most 1/scanBudget of one CPU however loaded the
	// machine is. (A loaded machine makes each look slower, and so rarer.)
	scanBudget = 32
)

// A pace decides when a look is due. A look is due firstScan after the
// latest look once the child has started or been sent a request. Then it
// is due twice as long after each look, down to interval. It is never due
// sooner after a look than scanBudget times what it took. Looks are taken
// when the child is heard from: its output is read, so it ran and has
// started whatever it started to answer. While it is silent, a look is
// taken every interval. The reader is awake anyway, so a look costs no
// wake-up of its own. None disturbs a child that is starting up and has
// said nothing yet. A pace is safe for concurrent use; one look runs at a
// time.
type pace struct {
	interval time.Duration // the slowest pace; zero or less: no looks

	mu      sync.Mutex    // guards the fields below
	gap     time.Duration // how long after the latest look the next is due
	cost    time.Duration // what the latest look took
	last    time.Time     // when the latest look ended, or the child started
	looking bool          // a look has begun and not ended
}

func newPace(interval time.Duration, start time.Time) *pace {
	return &pace{interval: interval, gap: firstScan, last: start}
}

// request restarts the slowing pace: the child was sent a request.
func (p *pace) request() {
	p.mu.Lock()
	p.gap = firstScan
	p.mu.Unlock()
}

// begin reports whether a look is due at now (silent: whether interval
// has passed), and if so claims it: no other look begins until end.
func (p *pace) begin(now time.Time, silent bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	wait := p.gap
	if silent {
		wait = p.interval
	}
	if p.interval <= 0 || p.looking || now.Before(p.last.Add(max(wait, scanBudget*p.cost))) {
		return false
	}
	p.looking = true
	return true
}

// end records the look that begin claimed, begun at start and ended at
// end.
func (p *pace) end(start, end time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.looking = false
	p.cost, p.last = end.Sub(start), end
	p.gap = min(2*p.gap, p.interval)
}

// silentUntil returns when a look is next due if the child stays silent.
func (p *pace) silentUntil() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last.Add(max(p.interval, scanBudget*p.cost))
}

// trackInterval is the slowest pace of the descendant scan; zero turns the
// scans off while the child runs (Close still scans). A variable so that a
// test can show what an escape between two scans does.
var trackInterval = 50 * time.Millisecond
