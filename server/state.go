package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/internal/canonjson"
)

// The requestState of an input-required result, as the client sees it, is
// sealed:
//
//	base64url(version | uvarint round | uvarint serial | 8-byte issue time | the handler's state | MAC)
//
// The MAC is HMAC-SHA256 under Options.StateKey. It covers a domain
// string, the payload, and what the state was issued for:
//   - tools/call, prompts/get or resources/read;
//   - the tool or prompt name or resource URI;
//   - a digest of the arguments;
//   - the authenticated principal.
//
// A client can read the handler's state, since it is not encrypted. It
// cannot change it, move it to another call or principal, make up a round
// count, or date it anew. The serial counts the states this Server has
// sealed. The issue time is in Unix nanoseconds, 0 when Options.StateTTL
// is negative. The two make every state unique. So the StateStore can
// tell its second use from the first of another.
const (
	stateVersion = 2
	stateDomain  = "looprig/mcp requestState\x00"
	macSize      = sha256.Size
)

// errBadState is wrapped by every reason a sealed state is refused.
var errBadState = errors.New("invalid requestState")

// binding identifies what a sealed state was issued for.
type binding struct {
	method    string // tools/call, prompts/get, resources/read
	name      string // tool or prompt name, resource URI
	args      []byte // digest of the arguments (nil for resources)
	principal string // the auth.TokenInfo.UserID of the request, or ""
}

// sealed is what open finds in a state.
type sealed struct {
	round  int
	user   string    // the handler's own state
	issued time.Time // zero: no time bound
	id     string    // names the state to the StateStore
}

// seal returns the state the client echoes to continue the call: the round
// count so far and the handler's own state, bound to b.
func (s *Server) seal(b binding, round int, user string) string {
	payload := binary.AppendUvarint([]byte{stateVersion}, uint64(round))
	payload = binary.AppendUvarint(payload, s.serial.Add(1))
	var issued uint64
	if s.stateTTL >= 0 {
		issued = uint64(time.Now().UnixNano())
	}
	payload = binary.BigEndian.AppendUint64(payload, issued)
	payload = append(payload, user...)
	return base64.RawURLEncoding.EncodeToString(append(payload, s.mac(b, payload)...))
}

// open checks a sealed state and returns what it holds. Every failure
// wraps errBadState.
func (s *Server) open(b binding, state string) (sealed, error) {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(raw) < 1+1+1+8+macSize {
		return sealed{}, fmt.Errorf("%w: not a state this server issued", errBadState)
	}
	payload, mac := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !hmac.Equal(mac, s.mac(b, payload)) {
		return sealed{}, fmt.Errorf("%w: it fails its integrity check (altered, or issued for another request, principal or server)", errBadState)
	}
	if payload[0] != stateVersion {
		return sealed{}, fmt.Errorf("%w: version %d", errBadState, payload[0])
	}
	rest := payload[1:]
	round, n := binary.Uvarint(rest)
	if n <= 0 || round > 1<<20 {
		return sealed{}, fmt.Errorf("%w: bad round count", errBadState)
	}
	rest = rest[n:]
	if _, n = binary.Uvarint(rest); n <= 0 || len(rest[n:]) < 8 {
		return sealed{}, fmt.Errorf("%w: bad serial", errBadState)
	}
	rest = rest[n:]
	out := sealed{round: int(round), user: string(rest[8:]), id: base64.RawURLEncoding.EncodeToString(mac)}
	if ns := binary.BigEndian.Uint64(rest); ns != 0 {
		out.issued = time.Unix(0, int64(ns))
	}
	return out, nil
}

func (s *Server) mac(b binding, payload []byte) []byte {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write([]byte(stateDomain))
	for _, part := range []string{b.method, b.name, b.principal} {
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
