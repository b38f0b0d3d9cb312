package cassette

import (
	"context"
	"fmt"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/verify"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/internal/transcript"
	"github.com/looprig/mcp/transport"
)

// Kinds of Drift.
const (
	// DriftSession: the protocol revision, the server's name, version,
	// capabilities or instructions, or how the session ended.
	DriftSession = verify.DriftSession
	// DriftCatalog: a tool, resource, resource template or prompt was added,
	// removed or changed.
	DriftCatalog = verify.DriftCatalog
	// DriftResult: the same call (sender, method and params) was answered
	// differently, or was made in one session only.
	DriftResult = verify.DriftResult
)

// A Drift is one way a session differs from another (Compare), or a live
// server from a cassette (Verify).
type Drift struct {
	Kind    string // DriftSession, DriftCatalog or DriftResult
	Subject string // what drifted: "server version", `tool "lookup"`, `tools/call lookup {"query":"x"}`
	Line    int    // its line in the old (recorded) cassette; 0 when that has none
	NewLine int    // its line in the new cassette (for Verify, in DriftError.Live); 0 when that has none
	Reason  string // "changed", "added", "removed", "answered differently", "not called in NEW", `"v1" -> "v2"`, …
	Diff    string // a unified line diff of indented JSON (--- OLD +++ NEW; Verify's --- recorded +++ live); "" when there is none to show
	// Severity weighs the drift: the worst of its changes.
	Severity Severity
	// Detail names the changes that weigh (`argument "limit" now
	// required`), each with its severity when they differ; "" when Reason
	// says it all.
	Detail string
}

// A DriftError reports how a live server's answers differ from a
// cassette's (Verify).
type DriftError struct {
	Cassette string
	Drifts   []Drift
	// Live is the live session as Verify drove it, recorded at the message
	// level (its Header.Transport the live transport's) and redacted with
	// the same options, without the polls of a task Verify sent again to
	// let the live task catch up with the recorded one: the drifts'
	// NewLine are its lines. Save it (Marshal) to see the whole live
	// session, or to re-record.
	Live *Cassette
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("cassette %s: the live server drifted (%d):%s", safetext.Line(e.Cassette), len(e.Drifts),
		strings.TrimSuffix(FormatDrifts(e.Drifts, "recorded", "live"), "\n"))
}

// FormatDrifts writes drifts as mcprig diff and verify print them: grouped
// by kind ("session drift:", "catalog drift:", "result drift:"), one line
// each naming what drifted, how and where (oldName and newName label the
// lines: "OLD", "recorded"), its diff indented below.
func FormatDrifts(ds []Drift, oldName, newName string) string {
	var b strings.Builder
	transcript.Format(&b, toTranscript(ds), oldName, newName)
	return b.String()
}

// Compare reports how the session recorded in new differs from old's, by
// their messages (see Messages), so that cassettes of any transports
// compare alike: session drift (the revision, the server's identity,
// capabilities and instructions, how the session ended), catalog drift
// (the last listing of each kind, item by item) and result drift (each
// call of old paired with the first unpaired call of new by sender,
// method and params, their answers compared; calls made in one only).
// Request ids, "_meta", the client's identity, opts.IgnorePaths and the
// numbering of placeholders are ignored; which transport carried a
// session is not drift. It returns no drifts for equivalent sessions, and
// an error for options it cannot use or a cassette that would not load.
//
// Each drift has a Severity, the worst of its changes:
//
//   - breaking: a tool, resource, template, prompt or catalog kind removed;
//     a required argument added or an optional one made required; an
//     argument removed, its type or enum narrowed, or a constraint of its
//     schema changed; an output schema or a MIME type changed; a result's
//     shape or error changed; a call made in one session only; the
//     revision, a capability removed, or how the session ended.
//   - dangerous: a description or the server's instructions changed (a rug
//     pull); a tool annotation relaxed (readOnlyHint true to false,
//     destructiveHint false to true, idempotentHint true to false,
//     openWorldHint false to true, absent hints at the specification's
//     defaults); a new tool.
//   - minor: an optional argument added; an argument's description
//     reworded; a type or enum widened; an argument made optional; an
//     annotation tightened; a new resource, template or prompt; a
//     capability added; the server's name; a result's values changed in
//     the same shape; any other field of an item.
//   - info: the order of a listing; titles, icons, a resource's name, size
//     or annotations; the server's version.
func Compare(old, new *Cassette, opts *Options) ([]Drift, error) {
	o := opts.orZero()
	if err := checkOptions("Compare", o, 0); err != nil {
		return nil, err
	}
	ds, err := verify.Compare(old.toFormat(), new.toFormat(), o.IgnorePaths)
	if err != nil {
		return nil, exported(err)
	}
	return driftsOf(ds), nil
}

// Verify drives a live server with the client messages recorded in c, in
// order, waiting for each recorded answer before going on, and reports
// where the live session drifted from the recorded one, as Compare does:
// session drift, catalog drift, result drift, by messages, whatever the
// transports (a stdio cassette verifies against an HTTP server and the
// other way round). Recorded client responses answer the live server's
// requests (sampling, elicitation, roots); requests are sent as recorded,
// redacted values as their placeholders. What Compare ignores is ignored
// (ids, "_meta", the client's identity, opts.IgnorePaths, the copies of
// requests refused 401 or 403 and sent again; live messages are redacted
// first).
//
// A request the recorded server refused with 401 or 403 outside JSON-RPC
// and the recorded client then sent again, message and id unchanged (the
// tokenless first request of a client that discovers its authorization
// server; a DPoP proof without the nonce the server asked for) is sent
// once: the copy sent again. The live factory's credentials recover from
// a refusal themselves, as the recorded client's did, so a tools/call
// refused for want of a nonce runs once at the live server, not twice,
// and neither the refused copy nor its 401 is drift. A refusal the client
// did not recover from (nothing sent again) is verified as recorded: a
// live server that answers the request drifts.
//
// It returns nil when nothing drifted, a *DriftError listing every drift
// (with the live session), or the error that stopped the session (ctx's
// included). An option Verify cannot use (Faults, which act in replay only;
// Hooks, RedactHeaders or Stderr the live transport has no use for) is an
// *OptionsError, as it is for Open.
func Verify(ctx context.Context, c *Cassette, live transport.Factory, opts *Options) error {
	if live == nil {
		return &OptionsError{Func: "Verify", Option: "live", Err: errNoLive}
	}
	if err := checkOptions("Verify", opts, live.Kind()); err != nil {
		return err
	}
	if opts != nil && len(opts.Faults) > 0 {
		return &OptionsError{Func: "Verify", Option: "Faults", Err: fmt.Errorf("%w: faults are injected in replay only", transport.ErrBadFault)}
	}
	o := opts.withLive(live)
	fc := c.toFormat()
	infos, err := format.Analyse(fc)
	if err != nil {
		return exported(err)
	}
	if err := checkRedaction(fc, o); err != nil {
		return err
	}
	ds, lc, err := verify.Run(ctx, fc, infos, live, &verify.Config{Record: recordConfig(o), IgnorePaths: o.IgnorePaths, Errors: madeErrors})
	switch {
	case err != nil:
		return exported(err)
	case len(ds) > 0:
		return &DriftError{Cassette: c.File, Drifts: driftsOf(ds), Live: fromFormat(lc)}
	}
	return nil
}
