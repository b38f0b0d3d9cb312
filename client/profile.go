package client

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Profile chooses the protocol revision a client offers and accepts.
//
// The zero value, ProfileDefault, negotiates as the go-sdk does: it offers
// the current revision, 2026-07-28 (server/discover, per-request _meta, no
// session), and accepts 2025-11-25 (initialize, a session) from a server
// that lacks server/discover. Every other profile pins one revision and
// refuses a server that negotiates any other, with a ClassProtocol error.
type Profile int

const (
	// ProfileDefault offers 2026-07-28 and accepts 2025-11-25 from a server
	// without server/discover. It is the zero value. Over a transport that
	// speaks one revision only (transport/sse, a replaying cassette) it
	// offers and accepts that revision.
	ProfileDefault Profile = iota
	// Profile20260728 pins protocol 2026-07-28, the current revision.
	Profile20260728
	// Profile20251125 pins protocol 2025-11-25: sessions, DELETE,
	// Last-Event-ID resumption.
	Profile20251125
	// Profile20250618 pins protocol 2025-06-18.
	Profile20250618
	// Profile20250326 pins protocol 2025-03-26, the first Streamable HTTP
	// revision.
	Profile20250326
	// ProfileLegacy pins protocol 2024-11-05, the revision of the legacy
	// HTTP+SSE transport. It goes with transport/sse only.
	ProfileLegacy
)

var profileVersions = [...]string{
	ProfileDefault:  "",
	Profile20260728: protocol.Revision20260728,
	Profile20251125: protocol.Revision20251125,
	Profile20250618: protocol.Revision20250618,
	Profile20250326: protocol.Revision20250326,
	ProfileLegacy:   protocol.Revision20241105,
}

// ParseProfile returns the profile String names: "default", "legacy", or a
// revision date ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26";
// "2024-11-05" is ProfileLegacy). Anything else is an error wrapping
// ReasonUnknownProfile.
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "default":
		return ProfileDefault, nil
	case "legacy":
		return ProfileLegacy, nil
	}
	if i := slices.Index(profileVersions[:], s); i > 0 {
		return Profile(i), nil
	}
	names := append([]string{"default", "legacy"}, profileVersions[Profile20260728:ProfileLegacy]...)
	return 0, fmt.Errorf("client: %w %q (want one of %s)", reasonErr(ReasonUnknownProfile), s, strings.Join(names, ", "))
}

// String returns "default", "legacy" or the pinned revision date, the names
// ParseProfile accepts.
func (p Profile) String() string {
	switch {
	case p == ProfileDefault:
		return "default"
	case p == ProfileLegacy:
		return "legacy"
	case p.valid():
		return profileVersions[p]
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ProtocolVersion returns the revision the profile pins, or "" for
// ProfileDefault (which negotiates) and for an unknown profile.
func (p Profile) ProtocolVersion() string {
	if !p.valid() {
		return ""
	}
	return profileVersions[p]
}

// Accepts reports whether a client with this profile accepts a server that
// negotiated the given revision.
func (p Profile) Accepts(version string) bool {
	return slices.Contains(p.offer().accept, version)
}

func (p Profile) valid() bool { return p >= 0 && int(p) < len(profileVersions) }

// offer is what a client sends and accepts.
type offer struct {
	version string   // the revision offered first
	accept  []string // the revisions accepted
}

// accepts says which revisions o accepts: "2026-07-28 only", "2026-07-28
// or 2025-11-25".
func (o offer) accepts() string {
	if len(o.accept) == 1 {
		return o.accept[0] + " only"
	}
	return strings.Join(o.accept, " or ")
}

// ErrRevisionMismatch is returned by Connect when the server and the
// profile have no protocol revision in common. Either the server
// negotiated one the profile does not accept, or it refused the one the
// profile offers. (A server of 2026-07-28 only has no initialize. A
// server may answer initialize with -32022, unsupported protocol
// version.) The message
// names both revisions. It is a ClassProtocol error, and connecting again
// with the same profile fails the same way.
var ErrRevisionMismatch = errors.New("protocol revision mismatch")

// A recording stands in for a server: a replaying cassette.Factory. It
// says where its session chose its revision, and which.
type recording interface {
	RecordedRevision() (where, revision string)
}

// revisionRefused returns the ErrRevisionMismatch of a session that
// negotiated got, which o does not accept. A replayed session names the
// recording and its line, since no server negotiated anything.
func revisionRefused(def Definition, got string, o offer) error {
	if r, ok := transport.As[recording](def.Transport); ok {
		if where, rev := r.RecordedRevision(); where != "" {
			return fmt.Errorf("%w: %s holds a session at protocol %s; profile %s accepts %s",
				ErrRevisionMismatch, where, cmp.Or(rev, got), def.Profile, o.accepts())
		}
	}
	return fmt.Errorf("%w: the server negotiated %s; profile %s accepts %s",
		ErrRevisionMismatch, got, def.Profile, o.accepts())
}

// refusedRevision returns the revision mismatch that err stands for, or
// nil. err comes from the go-sdk's handshake at the profile's revision.
// It stands for a mismatch when the server refused initialize (method not
// found: it speaks 2026-07-28 or later only). It also does when the server
// refused the revision offered (-32022, naming the revisions it supports).
func refusedRevision(err error, p Profile, o offer) error {
	var rpcErr *jsonrpc.Error
	if o.version >= protocol.Revision20260728 || !errors.As(err, &rpcErr) {
		return nil
	}
	switch rpcErr.Code {
	case jsonrpc.CodeMethodNotFound:
		return fmt.Errorf("%w: the server refused initialize at %s (%v), as a server of %s or later only does; profile %s accepts %s",
			ErrRevisionMismatch, o.version, rpcErr.Message, protocol.Revision20260728, p, o.accepts())
	case mcp.CodeUnsupportedProtocolVersion:
		var d mcp.UnsupportedProtocolVersionData
		json.Unmarshal(rpcErr.Data, &d)
		return fmt.Errorf("%w: the server refused %s, it supports %s; profile %s accepts %s",
			ErrRevisionMismatch, o.version, strings.Join(d.Supported, ", "), p, o.accepts())
	}
	return nil
}

func (p Profile) offer() offer {
	if p == ProfileDefault {
		return offer{version: protocol.Revision20260728, accept: []string{protocol.Revision20260728, protocol.Revision20251125}}
	}
	if !p.valid() {
		return offer{}
	}
	v := profileVersions[p]
	return offer{version: v, accept: []string{v}}
}
