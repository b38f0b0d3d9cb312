package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/looprig/mcp/transport"
)

// A Definition names one MCP server and how to reach it.
type Definition struct {
	// Name is the server's name as the harness knows it. Model names of its
	// tools are mcp__<Name>__<tool>. It must not be empty.
	Name string
	// Profile pins the protocol revision. The zero value is ProfileStable.
	Profile Profile
	// Limits bound discovery and shutdown. Zero fields take the documented
	// defaults.
	Limits Limits
	// Transport makes the connection: stdio.New, streamablehttp.New, sse.New,
	// inprocess.New, or a replaying cassette. It must not be nil.
	Transport transport.Factory
	// Fingerprint, if set, pins the expected catalog fingerprint
	// (Catalog.Fingerprint). When the discovered catalog differs, at connect
	// or after a list_changed notification, the change is reported
	// (Client.Drift, Handlers.CatalogChanged) and the changed tools refuse
	// calls until Client.AcceptCatalog.
	Fingerprint string
	// ToolFingerprints, if set together with Fingerprint, pins each tool's
	// fingerprint (Catalog.ToolFingerprints), so that a changed catalog holds
	// only the tools that changed or appeared. Without it, every tool is held
	// when the catalog fingerprint differs at connect.
	ToolFingerprints map[string]string
	// Disabled lists tool names whose bindings start disabled.
	Disabled []string
}

func (d *Definition) validate() error {
	if d.Name == "" {
		return errors.New("client: Definition.Name is empty")
	}
	if d.Transport == nil {
		return fmt.Errorf("client: Definition %q has no Transport", d.Name)
	}
	if _, err := d.Profile.protocolVersion(); err != nil {
		return err
	}
	if p, ok := d.Transport.(transport.ProtocolPinner); ok {
		if want, got := p.PinnedProtocolVersion(), d.Profile.ProtocolVersion(); want != "" && want != got {
			return fmt.Errorf("client: Definition %q: transport %s speaks protocol %s only, profile is %s", d.Name, d.Transport.Kind(), want, got)
		}
	}
	return nil
}

// A Profile pins the protocol revision a client offers and accepts.
type Profile int

const (
	// ProfileStable is protocol 2025-11-25: sessions, DELETE,
	// Last-Event-ID resumption. It is the zero value.
	ProfileStable Profile = iota
	// Profile20250618 is protocol 2025-06-18.
	Profile20250618
	// Profile20250326 is protocol 2025-03-26, the first Streamable HTTP revision.
	Profile20250326
	// ProfileLegacy is protocol 2024-11-05, the revision of the legacy
	// HTTP+SSE transport (transport/sse). It goes with that transport only.
	ProfileLegacy
	// ProfileDraft is the go-sdk's draft revision 2026-07-28. It is opt-in,
	// never implied.
	ProfileDraft
)

var profileVersions = [...]string{
	ProfileStable:   "2025-11-25",
	Profile20250618: "2025-06-18",
	Profile20250326: "2025-03-26",
	ProfileLegacy:   "2024-11-05",
	ProfileDraft:    "2026-07-28",
}

// ProtocolVersion returns the protocol revision the profile pins, or "" for
// an unknown profile.
func (p Profile) ProtocolVersion() string {
	v, _ := p.protocolVersion()
	return v
}

func (p Profile) protocolVersion() (string, error) {
	if p < 0 || int(p) >= len(profileVersions) {
		return "", fmt.Errorf("client: unknown Profile(%d)", int(p))
	}
	return profileVersions[p], nil
}

// String returns "stable", "draft", "legacy" or the pinned revision.
func (p Profile) String() string {
	switch p {
	case ProfileStable:
		return "stable"
	case ProfileLegacy:
		return "legacy"
	case ProfileDraft:
		return "draft"
	}
	if v := p.ProtocolVersion(); v != "" {
		return v
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// Limits bound what the server controls: discovery sizes and how long the
// client waits. A zero field takes its default.
type Limits struct {
	// MaxPages bounds the pages read from one list (tools, resources,
	// prompts). Zero means 100.
	MaxPages int
	// MaxItems bounds the items read from one list. Zero means 10,000.
	MaxItems int
	// MaxCatalogBytes bounds the encoded size of the whole discovered
	// catalog. Zero means 8 MiB.
	MaxCatalogBytes int
	// ConnectTimeout bounds Connect: handshake and discovery. Zero means 30s.
	ConnectTimeout time.Duration
	// DrainTimeout bounds how long Close waits for in-flight calls and
	// subscriptions to finish before it cancels them. Zero means 5s.
	DrainTimeout time.Duration
	// CallTimeout bounds one request after Connect (a tool call, a read, a
	// prompt), on top of the caller's context: a server that never answers
	// fails the call with ClassTimeout, and the go-sdk tells the server the
	// request was cancelled. Zero means 5 minutes; negative means no bound
	// but the caller's context.
	CallTimeout time.Duration
}

// Defaults for Limits' zero fields.
const (
	DefaultMaxPages        = 100
	DefaultMaxItems        = 10_000
	DefaultMaxCatalogBytes = 8 << 20
	DefaultConnectTimeout  = 30 * time.Second
	DefaultDrainTimeout    = 5 * time.Second
	DefaultCallTimeout     = 5 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	if l.MaxCatalogBytes <= 0 {
		l.MaxCatalogBytes = DefaultMaxCatalogBytes
	}
	if l.ConnectTimeout <= 0 {
		l.ConnectTimeout = DefaultConnectTimeout
	}
	if l.DrainTimeout <= 0 {
		l.DrainTimeout = DefaultDrainTimeout
	}
	if l.CallTimeout == 0 {
		l.CallTimeout = DefaultCallTimeout
	}
	return l
}
