package cassette

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultWait is how long replay holds a matched request's answer for the
// recorded requests it was ordered after, when Options.Wait is zero.
const DefaultWait = 5 * time.Second

// wait returns the bound on a held answer.
func (o *Options) wait() time.Duration {
	if o.Wait > 0 {
		return o.Wait
	}
	return DefaultWait
}

// A msgPlan is what replay needs to know of a message-level recording's
// order, computed once per Player: who sent each line, which response
// answers each call, and what each server response waits for besides its
// request. See the package documentation, "Concurrent requests".
type msgPlan struct {
	client   []bool  // a client message
	server   []bool  // a server message
	response []bool  // a server message that is a response (to a client call)
	respOf   []int   // for a client call: the line index of its response; -1
	needs    [][]int // for a server response: the client responses recorded between its call and it
}

func newMsgPlan(c *Cassette) *msgPlan {
	n := len(c.Interactions)
	pl := &msgPlan{client: make([]bool, n), server: make([]bool, n), response: make([]bool, n), respOf: make([]int, n), needs: make([][]int, n)}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		pl.respOf[i] = -1
		if in.Kind != KindMessage {
			continue
		}
		pl.client[i] = in.From == FromClient
		pl.server[i] = in.From == FromServer
		if _, ok := in.msg.(*jsonrpc.Response); ok && pl.server[i] && in.pair >= 0 {
			pl.response[i] = true
			pl.respOf[in.pair] = i
		}
	}
	for r := range c.Interactions {
		if !pl.response[r] {
			continue
		}
		for j := c.Interactions[r].pair + 1; j < r; j++ {
			if _, ok := c.Interactions[j].msg.(*jsonrpc.Response); ok && pl.client[j] {
				pl.needs[r] = append(pl.needs[r], j)
			}
		}
	}
	return pl
}

// isNotification reports whether line i is a client notification.
func (c *Cassette) isNotification(i int) bool {
	r, ok := c.Interactions[i].msg.(*jsonrpc.Request)
	return ok && !r.IsCall()
}
