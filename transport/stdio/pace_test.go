package stdio

import (
	"testing"
	"time"
)

const ms = time.Millisecond

// at is a time the tests count from.
func at(d time.Duration) time.Time { return time.Unix(0, 0).Add(d) }

// A look is due when the child is heard from firstScan after the start,
// then after gaps that double down to the interval; a request restarts the
// pace; while the child is silent a look is due every interval.
func TestPaceSlowsDownAndRestarts(t *testing.T) {
	p := newPace(8*ms, at(0))
	look := func(now time.Duration) {
		t.Helper()
		if !p.begin(at(now), false) {
			t.Fatalf("begin(%v) = false, want a look due", now)
		}
		p.end(at(now), at(now+10*time.Microsecond)) // cheap: under every gap / scanBudget
	}
	notDue := func(now time.Duration, silent bool) {
		t.Helper()
		if p.begin(at(now), silent) {
			t.Fatalf("begin(%v, silent %v) = true, want no look due", now, silent)
		}
	}
	notDue(0, false) // the child has said nothing yet
	notDue(ms-time.Microsecond, false)
	look(ms)
	end := ms + 10*time.Microsecond
	notDue(end+2*ms-time.Microsecond, false) // the gap doubled: 2ms
	look(end + 2*ms)
	end += 2*ms + 10*time.Microsecond
	notDue(end+4*ms-time.Microsecond, false)
	look(end + 4*ms)
	end += 4*ms + 10*time.Microsecond
	look(end + 8*ms) // 8ms: the interval
	end += 8*ms + 10*time.Microsecond
	notDue(end+8*ms-time.Microsecond, false) // no slower than the interval
	p.request()
	notDue(end+ms-time.Microsecond, false)
	look(end + ms)
	end += ms + 10*time.Microsecond
	if got := p.silentUntil(); !got.Equal(at(end + 8*ms)) {
		t.Errorf("silentUntil() = %v, want %v", got, at(end+8*ms))
	}
	notDue(end+8*ms-time.Microsecond, true)
	if !p.begin(at(end+8*ms), true) {
		t.Errorf("begin(interval after the last look, silent) = false, want true")
	}
}

// One look runs at a time; a look that took long holds the next back to
// scanBudget times its cost, silent or not.
func TestPaceBudgetAndOneAtATime(t *testing.T) {
	p := newPace(8*ms, at(0))
	if !p.begin(at(ms), false) {
		t.Fatal("begin(1ms) = false")
	}
	if p.begin(at(5*ms), false) || p.begin(at(50*ms), true) {
		t.Fatal("a second look began while one runs")
	}
	p.end(at(ms), at(2*ms)) // took 1ms: the next waits 32ms
	for _, silent := range []bool{false, true} {
		if p.begin(at(2*ms+scanBudget*ms-time.Microsecond), silent) {
			t.Errorf("begin(silent %v) before scanBudget times the cost = true", silent)
		}
	}
	if !p.begin(at(2*ms+scanBudget*ms), false) {
		t.Errorf("begin(at scanBudget times the cost) = false, want true")
	}
}

// An interval of zero turns the looks off.
func TestPaceOff(t *testing.T) {
	p := newPace(0, at(0))
	if p.begin(at(time.Hour), false) || p.begin(at(time.Hour), true) {
		t.Error("begin() with interval 0 = true")
	}
}
