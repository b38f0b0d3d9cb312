package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/looprig/mcp/internal/canonjson"
)

// The requestState of an input-required result, as the client sees it, is
// sealed: base64url(version | uvarint round | the handler's state | MAC),
// where the MAC is HMAC-SHA256 under Options.StateKey over a domain
// string, what the state was issued for (tools/call, prompts/get or
// resources/read; the tool or prompt name or resource URI; a digest of the
// arguments) and the payload. A client can read the handler's state (it is
// not encrypted) but cannot change it, move it to another call, or make up
// a round count.
const (
	stateVersion = 1
	stateDomain  = "looprig/mcp requestState\x00"
	macSize      = sha256.Size
)

// errBadState is wrapped by every reason a sealed state is refused.
var errBadState = errors.New("invalid requestState")

// binding identifies what a sealed state was issued for.
type binding struct {
	method string // tools/call, prompts/get, resources/read
	name   string // tool or prompt name, resource URI
	args   []byte // digest of the arguments (nil for resources)
}

// seal returns the state the client echoes to continue the call: the round
// count so far and the handler's own state, bound to b.
func (s *Server) seal(b binding, round int, user string) string {
	payload := binary.AppendUvarint([]byte{stateVersion}, uint64(round))
	payload = append(payload, user...)
	return base64.RawURLEncoding.EncodeToString(append(payload, s.mac(b, payload)...))
}

// open checks a sealed state and returns the round count and the handler's
// state in it. Every failure wraps errBadState.
func (s *Server) open(b binding, sealed string) (round int, user string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) < 1+1+macSize {
		return 0, "", fmt.Errorf("%w: not a state this server issued", errBadState)
	}
	payload, mac := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !hmac.Equal(mac, s.mac(b, payload)) {
		return 0, "", fmt.Errorf("%w: it fails its integrity check (altered, or issued for another request or by another server)", errBadState)
	}
	if payload[0] != stateVersion {
		return 0, "", fmt.Errorf("%w: version %d", errBadState, payload[0])
	}
	r, n := binary.Uvarint(payload[1:])
	if n <= 0 || r > 1<<20 {
		return 0, "", fmt.Errorf("%w: bad round count", errBadState)
	}
	return int(r), string(payload[1+n:]), nil
}

func (s *Server) mac(b binding, payload []byte) []byte {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write([]byte(stateDomain))
	for _, part := range []string{b.method, b.name} {
		m.Write(binary.AppendUvarint(nil, uint64(len(part))))
		m.Write([]byte(part))
	}
	digest := sha256.Sum256(b.args)
	m.Write(digest[:])
	m.Write(payload)
	return m.Sum(nil)
}

// argsDigest returns the canonical form of a JSON value (internal/canonjson),
// which does not depend on how a client encoded it (key order, spacing,
// escapes), so that a continuation whose client re-encoded the same
// arguments still matches its state. Absent and null arguments are the
// empty object. Invalid JSON is returned as is: the call is refused before
// its state matters.
func argsDigest(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}")
	}
	if c, err := canonjson.Canonical(raw); err == nil {
		return c
	}
	return raw
}
