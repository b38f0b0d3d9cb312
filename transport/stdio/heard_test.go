//go:build unix

package stdio_test

import (
	"slices"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The tracker looks for descendants when the child is heard from: a
// grandchild that the child started in a session of its own to answer a
// request is seen once its answer is read, with the tracker's own timer
// too slow to have looked (an hour). Counted in /proc.
func TestDescendantSeenWhenTheChildAnswers(t *testing.T) {
	requireProc(t)
	leakcheck.Check(t)
	stdio.SetTrackInterval(t, time.Hour)
	path, env := recordFile(t)
	c := connect(t, newFactory(t, "spawner", &stdio.Options{Env: env}))
	ctx := testkit.Context(t)
	var gpid int
	// Each round trip is a request (the looks' pace restarts) and an answer
	// read (a look, once one is due): a labelled poll with the test's
	// deadline.
	deadline := time.Now().Add(10 * time.Second)
	for id := int64(1); ; id++ {
		mid, _ := jsonrpc.MakeID(float64(id))
		if err := c.Write(ctx, &jsonrpc.Request{ID: mid, Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
		if gpid == 0 {
			gpid = recordedPid(t, path, "grandchild")
		}
		if slices.Contains(c.Descendants(), gpid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d answers the connection has not seen the grandchild %d: Descendants() = %v", id, gpid, c.Descendants())
		}
	}
	if _, err := testkit.CloseWithin(t, c, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !dead(t, gpid) {
		t.Errorf("grandchild %d is still running after Close (state %s)", gpid, procState(t, gpid))
	}
}
