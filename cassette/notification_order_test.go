package cassette

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette/internal/record"
)

// msgLines builds message lines from "c:" (client) and "s:" (server)
// prefixed JSON-RPC messages.
func msgLines(lines ...string) *Cassette {
	c := &Cassette{}
	for _, l := range lines {
		from := FromClient
		if strings.HasPrefix(l, "s:") {
			from = FromServer
		}
		c.Interactions = append(c.Interactions, Interaction{Kind: KindMessage, From: from, Message: []byte(l[2:])})
	}
	return c
}

func shown(c *Cassette) []string {
	var out []string
	for _, in := range c.Interactions {
		p := "c:"
		if in.From == FromServer {
			p = "s:"
		}
		out = append(out, p+string(in.Message))
	}
	return out
}

const (
	initialized = `c:{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listReq     = `c:{"id":3,"jsonrpc":"2.0","method":"tools/list"}`
	listResp    = `s:{"id":3,"jsonrpc":"2.0","result":{"tools":[]}}`
	changed     = `s:{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	callReq     = `c:{"id":4,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`
	callResp    = `s:{"id":4,"jsonrpc":"2.0","result":{}}`
	listen      = `c:{"id":2,"jsonrpc":"2.0","method":"subscriptions/listen"}`
	ack         = `s:{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`
)

// TestNotificationsWrittenBeforeListings: a notification the server sent
// of its own accord is written before the read-only exchanges recorded
// just before it. So every timing of it gives the same lines. It never
// passes a call or a client notification: either may have caused it. An
// acknowledgement goes right after its subscription's request.
func TestNotificationsWrittenBeforeListings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"before an answer", []string{initialized, listReq, changed, listResp}, []string{initialized, changed, listReq, listResp}},
		{"after an answer", []string{initialized, listReq, listResp, changed}, []string{initialized, changed, listReq, listResp}},
		{"already first", []string{initialized, changed, listReq, listResp}, []string{initialized, changed, listReq, listResp}},
		{"not past a call", []string{callReq, changed, callResp}, []string{callReq, changed, callResp}},
		{"not past a call's answer", []string{callReq, callResp, listReq, listResp, changed}, []string{callReq, callResp, changed, listReq, listResp}},
		{"ack after its request", []string{listen, listReq, listResp, callReq, callResp, ack}, []string{listen, ack, listReq, listResp, callReq, callResp}},
		{"ack in place", []string{listen, ack, callReq, callResp}, []string{listen, ack, callReq, callResp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := msgLines(tc.in...)
			inFormat(c, record.MoveNotificationsEarlier)
			if diff := cmp.Diff(tc.want, shown(c)); diff != "" {
				t.Errorf("MoveNotificationsEarlier mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
