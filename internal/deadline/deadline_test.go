package deadline

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is a clock whose time moves only when the test advances it,
// and whose one timer fires then, if due. It counts the timer's settings.
type fakeClock struct {
	now   time.Time
	at    time.Time // when the timer fires; zero when not pending
	f     func()
	makes int // AfterFunc calls
	sets  int // AfterFunc and Reset calls
}

func newFake() *fakeClock { return &fakeClock{now: time.Unix(1000, 0)} }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.makes++
	c.f = f
	c.Reset(d)
	return c
}

func (c *fakeClock) Reset(d time.Duration) bool {
	c.sets++
	pending := !c.at.IsZero()
	c.at = c.now.Add(d)
	return pending
}

// advance moves the time on by d, firing the timer each time it is due.
func (c *fakeClock) advance(d time.Duration) {
	end := c.now.Add(d)
	for !c.at.IsZero() && !c.at.After(end) {
		c.now, c.at = c.at, time.Time{}
		c.f()
	}
	c.now = end
}

func newWatch(d time.Duration) (*Watch, *fakeClock) {
	c := newFake()
	return &Watch{d: d, clock: c}, c
}

// An op in progress expires at its deadline exactly: not a nanosecond
// before it, and once.
func TestExpiresAtTheDeadline(t *testing.T) {
	w, c := newWatch(time.Second)
	n := 0
	op := &Op{Expire: func() { n++ }}
	if !w.Start(op) {
		t.Fatal("Start = false, want true")
	}
	c.advance(time.Second - time.Nanosecond)
	if n != 0 {
		t.Fatalf("expired %d times a nanosecond before its deadline, want 0", n)
	}
	c.advance(time.Nanosecond)
	if n != 1 {
		t.Fatalf("expired %d times at its deadline, want 1", n)
	}
	c.advance(time.Hour)
	if n != 1 || !w.Stop(op) || w.Start(op) {
		t.Errorf("after expiry: %d expiries, Stop reports not expired, or Start starts it again", n)
	}
}

// Stopped before its deadline, an op never expires, and the timer left at
// its deadline expires the next op at that op's own deadline: not at the
// first's, nor later.
func TestStoppedEarlyTheNextExpiresOnTime(t *testing.T) {
	w, c := newWatch(time.Second)
	var got []string
	a := &Op{Expire: func() { got = append(got, fmt.Sprint("a at ", c.now.Sub(time.Unix(1000, 0)))) }}
	b := &Op{Expire: func() { got = append(got, fmt.Sprint("b at ", c.now.Sub(time.Unix(1000, 0)))) }}
	w.Start(a)
	c.advance(300 * time.Millisecond)
	w.Start(b) // deadline 1.3s
	c.advance(100 * time.Millisecond)
	if w.Stop(a) {
		t.Fatal("Stop(a) reports it expired")
	}
	c.advance(900*time.Millisecond - time.Nanosecond) // 1.3s less a nanosecond
	if len(got) != 0 {
		t.Fatalf("expired %v before b's deadline", got)
	}
	c.advance(time.Nanosecond)
	if diff := cmp.Diff([]string{"b at 1.3s"}, got); diff != "" {
		t.Errorf("expiries mismatch (-want +got):\n%s", diff)
	}
}

// A restarted op (the next read of a body) is bounded from its new start.
func TestRestartBoundsFromTheNewStart(t *testing.T) {
	w, c := newWatch(time.Second)
	n := 0
	op := &Op{Expire: func() { n++ }}
	for range 5 {
		w.Start(op)
		c.advance(900 * time.Millisecond)
		w.Stop(op)
	}
	if n != 0 {
		t.Fatalf("a run of reads each within the bound expired %d times", n)
	}
	w.Start(op)
	c.advance(time.Second)
	if n != 1 {
		t.Errorf("a read as long as the bound expired %d times, want 1", n)
	}
}

// Close is for good: a Start after it (a request's WroteRequest that comes
// after its response) starts nothing, and nothing expires.
func TestCloseIsForGood(t *testing.T) {
	w, c := newWatch(time.Second)
	n := 0
	op := &Op{Expire: func() { n++ }}
	if w.Close(op) {
		t.Fatal("Close of an op never started reports it expired")
	}
	if w.Start(op) {
		t.Error("Start after Close = true, want false")
	}
	c.advance(time.Hour)
	if n != 0 {
		t.Errorf("closed op expired %d times", n)
	}
	// Closing a running op stops it.
	op2 := &Op{Expire: func() { n++ }}
	w.Start(op2)
	w.Close(op2)
	c.advance(time.Hour)
	if n != 0 || w.Start(op2) {
		t.Errorf("a running op closed: %d expiries, or it starts again", n)
	}
}

// The timer is set once per fire, not per operation: a thousand
// operations started and stopped while one is in progress set it no more.
func TestOneTimerForMany(t *testing.T) {
	w, c := newWatch(time.Minute)
	long := &Op{Expire: func() {}}
	w.Start(long)
	for i := range 1000 {
		op := &Op{Expire: func() { t.Errorf("op %d expired", i) }}
		w.Start(op)
		c.advance(time.Millisecond)
		w.Stop(op)
	}
	if c.makes != 1 || c.sets != 1 {
		t.Errorf("timer made %d times and set %d times, want 1 and 1", c.makes, c.sets)
	}
	w.Stop(long)
	// Empty, the timer fires once at long's deadline and is not set again;
	// the next Start sets it once.
	c.advance(time.Hour)
	w.Start(long)
	if c.makes != 1 || c.sets != 2 {
		t.Errorf("after the watch went empty: made %d, set %d, want 1 and 2", c.makes, c.sets)
	}
}

// Several due at one fire all expire, in deadline order; one not yet due
// stays.
func TestFireExpiresAllDue(t *testing.T) {
	w, c := newWatch(time.Second)
	var got []int
	ops := make([]*Op, 4)
	for i := range ops {
		ops[i] = &Op{Expire: func() { got = append(got, i) }}
	}
	w.Start(ops[0])
	w.Start(ops[1]) // same deadline as 0
	c.advance(10 * time.Millisecond)
	w.Start(ops[2])
	c.advance(500 * time.Millisecond)
	w.Start(ops[3])
	c.advance(490 * time.Millisecond) // ops 0 and 1 due; 2 due in 10ms
	c.advance(10 * time.Millisecond)
	if diff := cmp.Diff([]int{0, 1, 2}, got); diff != "" {
		t.Errorf("expiries mismatch (-want +got):\n%s", diff)
	}
	if !w.Stop(ops[2]) || w.Stop(ops[3]) {
		t.Error("Stop misreports which expired")
	}
}

// A zero duration bounds nothing.
func TestZeroBoundsNothing(t *testing.T) {
	w := New(0)
	if w.Start(&Op{Expire: func() { t.Error("expired") }}) {
		t.Error("Start with a zero bound = true")
	}
}

// On the real clock, from many goroutines at once (run with -race): every
// op held past the bound expires once, and none stopped in time does.
func TestConcurrent(t *testing.T) {
	const bound = 20 * time.Millisecond
	w := New(bound)
	var wg sync.WaitGroup
	var wrong atomic.Int32
	for i := range 50 {
		wg.Go(func() {
			for j := range 20 {
				var n atomic.Int32
				done := make(chan struct{})
				op := &Op{Expire: func() {
					if n.Add(1) == 1 {
						close(done)
					}
				}}
				w.Start(op)
				if (i+j)%5 == 0 {
					select { // held past its bound: it must expire
					case <-done:
					case <-time.After(10 * time.Second):
						wrong.Add(1)
					}
				}
				expired := w.Close(op)
				if expired != (n.Load() > 0) && (i+j)%5 == 0 {
					wrong.Add(1)
				}
				if n.Load() > 1 {
					wrong.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d ops expired wrongly (never, twice, or unlike Close reported)", n)
	}
}
