package client

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// The notifier's phases, each alone: once Close has begun (closeIntake) a
// notification is dropped and counted, not run, while a server's request
// is still served (a call being drained may need one); once the handlers
// are stopped a request is refused with ErrClosed and its handler never
// runs; a request running when they are stopped has its context
// cancelled, and the notifier is idle once it has returned.
func TestNotifierPhases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newNotifier(4)
		var ran atomic.Int64
		run := func(context.Context) { ran.Add(1) }

		n.post("logging", run)
		<-n.closeIntake() // the queued one runs before the queue is idle
		n.post("logging", run)
		n.postList("tools", run)
		synctest.Wait()
		if got, dropped := ran.Load(), n.droppedCount(); got != 1 || dropped != 1 {
			t.Errorf("after Close began: %d handlers ran, %d dropped; want 1 ran (queued before), 1 dropped", got, dropped)
		}
		if err := n.request(context.Background(), "sampling", func(context.Context) error { return nil }); err != nil {
			t.Errorf("a request while Close drains: %v, want it served", err)
		}

		entered, returned := make(chan struct{}), make(chan error, 1)
		go func() {
			returned <- n.request(context.Background(), "sampling", func(ctx context.Context) error {
				close(entered)
				<-ctx.Done()
				return ctx.Err()
			})
		}()
		<-entered
		idle := n.stop()
		if err := <-returned; !errors.Is(err, context.Canceled) {
			t.Errorf("a request running at stop returned %v, want its context cancelled", err)
		}
		<-idle

		called := false
		err := n.request(context.Background(), "sampling", func(context.Context) error { called = true; return nil })
		if !errors.Is(err, ErrClosed) || called {
			t.Errorf("a request after stop: %v, handler ran %v; want ErrClosed and no handler", err, called)
		}
		n.post("logging", run)
		synctest.Wait()
		if got := ran.Load(); got != 1 {
			t.Errorf("%d handlers ran, want 1: none after stop", got)
		}
	})
}
