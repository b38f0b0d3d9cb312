package stdio

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The scans after the start come at a slowing pace down to the interval;
// a request restarts it; a scan that took long pushes the next one back
// to scanBudget times its cost, whatever the pace says.
func TestPace(t *testing.T) {
	const ms = time.Millisecond
	t0 := time.Unix(0, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	p := newPace(8 * ms)
	var got []time.Duration
	now := p.start()
	got = append(got, now)
	scan := func(cost time.Duration) {
		wait := p.scanned(at(now), at(now+cost))
		now += cost + wait
		got = append(got, wait)
	}
	for range 5 {
		scan(10 * time.Microsecond) // cheap: 32 × 10µs is under every gap
	}
	// Slowing down: 1, 2, 4, 8, then every 8ms.
	want := []time.Duration{ms, ms, 2 * ms, 4 * ms, 8 * ms, 8 * ms}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits after the start mismatch (-want +got):\n%s", diff)
	}
	// A request 3ms after the last scan restarts the pace.
	if w := p.event(at(now - 8*ms + 3*ms)); w != ms {
		t.Errorf("event() = %v, want %v", w, ms)
	}
	if w := p.scanned(at(0), at(10*time.Microsecond)); w != ms {
		t.Errorf("scanned() after a request = %v, want %v", w, ms)
	}
	// A scan of 1ms: the next waits 32ms, more than the pace's 2ms; a
	// request 5ms after it still waits for the budget, 27ms more.
	if w := p.scanned(at(0), at(ms)); w != scanBudget*ms {
		t.Errorf("scanned() after a 1ms scan = %v, want %v", w, scanBudget*ms)
	}
	if w := p.event(at(ms + 5*ms)); w != scanBudget*ms-5*ms {
		t.Errorf("event() 5ms after a 1ms scan = %v, want %v", w, scanBudget*ms-5*ms)
	}
	// Long after it, a request waits only firstScan.
	if w := p.event(at(time.Second)); w != firstScan {
		t.Errorf("event() long after = %v, want %v", w, firstScan)
	}
}
