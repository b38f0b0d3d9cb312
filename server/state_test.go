package server

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
)

// A sealed requestState whose payload a client changed, keeping the seal
// (the MAC) it was issued with, is refused before the handler runs: the
// round count reset (to escape MaxInputRounds) or raised, the handler's
// own state rewritten, lengthened or cut, the version byte changed. The
// state as issued is accepted, so the refusals are the seal's doing.
func TestRequestStatePayloadChangedSealKept(t *testing.T) {
	leakcheck.Check(t)
	s := newServer(t, "docs", "v1", &Options{StateKey: []byte(strings.Repeat("k", 32))})
	var c confirmer
	mustRegister(t, s, confirmTool("rm"), c.handle)
	cs := manual(t, s, elicitCaps)
	const args = `{"path":"/tmp/a","n":1}`
	state := ask(t, cs, "rm", args)
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatalf("the state is not base64url: %v", err)
	}
	payload, seal := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if payload[0] != stateVersion || !strings.HasSuffix(string(payload), "confirm") {
		t.Fatalf("payload %q is not version | round | the handler's state", payload)
	}
	resealed := func(p []byte) string {
		return base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), p...), seal...))
	}
	withRound := func(round byte) []byte {
		p := append([]byte(nil), payload...)
		p[1] = round
		return p
	}
	user := payload[2:] // one varint byte of round count
	for _, tt := range []struct {
		name    string
		payload []byte
	}{
		{"round reset to 0", withRound(0)},
		{"round raised", withRound(payload[1] + 1)},
		{"handler's state rewritten", append(payload[:2:2], "cancel!"...)},
		{"handler's state lengthened", append(append([]byte(nil), payload...), "-more"...)},
		{"handler's state cut", payload[:len(payload)-1]},
		{"handler's state emptied", payload[:2]},
		{"version changed", append([]byte{stateVersion + 1}, payload[1:]...)},
		{"round and state swapped in", append(append([]byte{stateVersion}, user...), payload[1])},
	} {
		before := c.runs.Load()
		got, err := continueCall(cs, "rm", args, resealed(tt.payload))
		if err == nil || !strings.Contains(err.Error(), "invalid requestState") {
			t.Errorf("%s: continuation = %q, %v; want it refused as an invalid requestState", tt.name, got, err)
		}
		if ran := c.runs.Load() - before; ran != 0 {
			t.Errorf("%s: the handler ran %d times for a refused continuation", tt.name, ran)
		}
	}
	if got, err := continueCall(cs, "rm", args, resealed(payload)); err != nil || !strings.HasPrefix(got, "accept rm:") {
		t.Errorf("the state as issued: %q, %v; want it accepted", got, err)
	}
}
