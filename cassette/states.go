package cassette

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// renameStates renames the request states a server hands out in its
// input-required results (2026-07-28's requestState), as session ids are
// renamed: a request state is an opaque token the client only hands back,
// and a server may seal into it a serial, a time or a nonce, which would
// change the result's line and its continuation's in every re-recording.
// The n-th state the server handed out becomes "state-<n>", in the result
// and wherever it appears whole as a JSON string after it (the
// continuations that carry it back). Replay hands out the new name, which
// the client sends back; Verify hands the live server the state it issued
// in its place.
func renameStates(c *Cassette) {
	var names stateNames
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if len(in.Message) == 0 {
			continue
		}
		if st := issuedState(in.Message); st != nil {
			names.add(st)
		}
		in.Message = names.rename(in.Message)
	}
}

// stateNames maps the states a session's server issued, as quoted JSON
// strings, to their new names, in the order issued.
type stateNames struct {
	from, to [][]byte
}

// add names st (a quoted JSON string) unless it has a name already.
func (n *stateNames) add(st []byte) {
	for _, f := range n.from {
		if bytes.Equal(f, st) {
			return
		}
	}
	n.from = append(n.from, bytes.Clone(st))
	n.to = append(n.to, []byte(strconv.Quote("state-"+strconv.Itoa(len(n.from)))))
}

// rename replaces every named state in msg with its name.
func (n *stateNames) rename(msg []byte) []byte {
	for i, f := range n.from {
		if bytes.Contains(msg, f) {
			msg = bytes.ReplaceAll(msg, f, n.to[i])
		}
	}
	return msg
}

// issuedState returns the requestState of msg's result, as the quoted JSON
// string it is written as, or nil when msg is not a result carrying one.
func issuedState(msg json.RawMessage) []byte {
	if !bytes.Contains(msg, []byte(`"requestState"`)) {
		return nil
	}
	var m struct {
		Result *struct {
			RequestState json.RawMessage `json:"requestState"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil {
		return nil
	}
	st := bytes.TrimSpace(m.Result.RequestState)
	if len(st) < 2 || st[0] != '"' {
		return nil
	}
	return st
}
