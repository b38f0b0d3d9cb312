package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/protocol"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// How fast a task moves is the machine's, not the session's: Verify sends
// the recorded polls of a task one after the other, as fast as the live
// server answers, where the recording client waited between them. When the
// live server answers a poll with its task still working where the
// recorded answer had moved on (input_required, completed, failed,
// cancelled), Verify polls the live task again, at the server's hint, until
// it moves on too, at most maxRepolls times within maxRepollWait. The
// live session is compared with the last of these polls in the place of
// the recorded one (the polls it superseded are folded out of it), and a
// task that moves on to another state than the recorded one is a result
// drift, as any answer that differs.
const (
	maxRepolls    = 1000
	maxRepollWait = 30 * time.Second
	repollFloor   = time.Millisecond
	repollCeiling = 100 * time.Millisecond
)

// repollUntilMoved returns the live answer to poll i, a tasks/get the
// recording sent. It polls again while the live task is still working
// where the recorded answer rec had moved on. got is the live answer so far.
func (v *verifier) repollUntilMoved(ctx context.Context, conn interface {
	Write(context.Context, jsonrpc.Message) error
}, i int, rec json.RawMessage, got jsonrpc.Message) (jsonrpc.Message, error) {
	want, _ := taskStatusOf(rec)
	if want == "" || want == string(protocol.TaskWorking) {
		return got, nil
	}
	req, ok := v.infos[i].Msg.ToMessage().(*jsonrpc.Request)
	if !ok {
		return got, nil
	}
	deadline := time.Now().Add(maxRepollWait)
	sent := format.LiveIDKey(req.ID) // the last poll sent
	for n := 1; n <= maxRepolls && time.Now().Before(deadline); n++ {
		status, hint := liveTaskStatus(got)
		if status != string(protocol.TaskWorking) {
			break
		}
		if err := sleepCtx(ctx, min(max(hint, repollFloor), repollCeiling)); err != nil {
			return nil, fmt.Errorf("polling the live task again: %w", err)
		}
		id, err := jsonrpc.MakeID(fmt.Sprintf("verify-poll-%d-%d", i, n))
		if err != nil {
			return nil, err
		}
		cp := *req
		cp.ID = id
		cp.Params = v.tasks.Rename(v.states.Rename(cp.Params))
		if v.superseded == nil {
			v.superseded = map[string]bool{}
		}
		v.superseded[sent], sent = true, format.LiveIDKey(id)
		v.outstanding[id] = true
		if err := conn.Write(ctx, &cp); err != nil {
			delete(v.outstanding, id)
			return nil, fmt.Errorf("polling the live task again: %w", err)
		}
		got, err = v.await(ctx, "the answer to a tasks/get sent again", false, func(g jsonrpc.Message) bool {
			r, ok := g.(*jsonrpc.Response)
			return ok && r.ID == id
		})
		delete(v.outstanding, id)
		if err != nil {
			return nil, err
		}
	}
	return got, nil
}

// taskStatusOf returns the status of the task in the result of msg (a
// canonical response) and its poll interval hint.
func taskStatusOf(msg json.RawMessage) (string, time.Duration) {
	var m struct {
		Result *struct {
			Status         string `json:"status"`
			PollIntervalMs int64  `json:"pollIntervalMs"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil {
		return "", 0
	}
	return m.Result.Status, time.Duration(m.Result.PollIntervalMs) * time.Millisecond
}

// liveTaskStatus is taskStatusOf for a live answer.
func liveTaskStatus(got jsonrpc.Message) (string, time.Duration) {
	live := liveAnswer(got)
	if live == nil {
		return "", 0
	}
	return taskStatusOf(live)
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// foldPolls removes from the live session lc the polls Verify superseded
// by polling again (their requests and answers; over HTTP, their
// streams).
func foldPolls(lc *format.Cassette, superseded map[string]bool) {
	if len(superseded) == 0 {
		return
	}
	streams := map[int]bool{}
	drop := make([]bool, len(lc.Interactions))
	for i := range lc.Interactions {
		in := &lc.Interactions[i]
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if len(in.Message) == 0 || json.Unmarshal(in.Message, &m) != nil || m.ID == nil {
			continue
		}
		if k, err := format.IDKey(m.ID); err == nil && superseded[k] {
			drop[i] = true
			if in.HTTP != nil {
				streams[in.HTTP.Stream] = true
			}
		}
	}
	kept := lc.Interactions[:0]
	for i, in := range lc.Interactions {
		if drop[i] || in.HTTP != nil && streams[in.HTTP.Stream] {
			continue
		}
		kept = append(kept, in)
	}
	lc.Interactions = kept
}
