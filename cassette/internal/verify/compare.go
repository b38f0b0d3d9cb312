package verify

import (
	"fmt"
	"strings"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/redact"
	"github.com/looprig/mcp/cassette/internal/replay"
	"github.com/looprig/mcp/internal/transcript"
)

// Kinds of Drift.
const (
	// DriftSession: the protocol revision, the server's name, version,
	// capabilities or instructions, or how the session ended.
	DriftSession = transcript.DriftSession
	// DriftCatalog: a tool, resource, resource template or prompt was added,
	// removed or changed.
	DriftCatalog = transcript.DriftCatalog
	// DriftResult: the same call (sender, method and params) was answered
	// differently, or was made in one session only.
	DriftResult = transcript.DriftResult
)

// Compare reports how the session recorded in new differs from old's
// (package cassette's Compare), ignoring the paths ignore names too.
func Compare(old, new *format.Cassette, ignore []string) ([]transcript.Drift, error) {
	mt := replay.NewMatcher(ignore, old, new)
	a, err := readTranscript(old, mt)
	if err != nil {
		return nil, err
	}
	b, err := readTranscript(new, mt)
	if err != nil {
		return nil, err
	}
	return compareTranscripts(old, new, a, b, "OLD", "NEW"), nil
}

// compareTranscripts compares two read cassettes, endings included.
func compareTranscripts(old, new *format.Cassette, a, b *transcript.Session, oldName, newName string) []transcript.Drift {
	ds := transcript.Compare(a, b, oldName, newName)
	// How the session ended goes with the session drift.
	var end []transcript.Drift
	if eo, en := endingOf(old), endingOf(new); eo.text != en.text {
		end = append(end, transcript.Drift{Kind: DriftSession, Subject: "ending", OldLine: eo.line, NewLine: en.line, Reason: fmt.Sprintf("%s -> %s", eo.text, en.text),
			Severity: transcript.SessionSeverity("ending", eo.text, en.text)})
	}
	k := 0
	for k < len(ds) && ds[k].Kind == DriftSession {
		k++
	}
	return append(ds[:k:k], append(end, ds[k:]...)...)
}

// readTranscript reads c's messages, as matching sees them: canonical,
// without the ignored paths, placeholders spelled alike, and without the
// copies of requests refused 401 or 403 and sent again (replay/refusals.go): the
// credentials' doing, not the session's. Messages keep their numbers.
func readTranscript(c *format.Cassette, mt *replay.Matcher) (*transcript.Session, error) {
	infos, err := format.Analyse(c)
	if err != nil {
		return nil, err
	}
	passed := replay.LineSet(replay.RecoveredRefusals(c, infos))
	var msgs []transcript.Message
	n := 0
	for i := range c.Interactions {
		if infos[i].Canon == nil {
			continue
		}
		n++
		if passed[i] {
			continue
		}
		msgs = append(msgs, transcript.Message{Number: n, Line: c.Line(i), From: format.Side(&c.Interactions[i]), Raw: infos[i].Canon})
	}
	s := transcript.Read(msgs, func(raw []byte) []byte { return redact.Normalise(mt.Strip(raw)) })
	s.Protocol = c.Header.Protocol
	if s.ServerName == "" {
		s.ServerName = c.Header.Server
	}
	return s, nil
}

// An ending is how a session ended, as Compare compares it.
type ending struct {
	line int
	text string
}

// endingOf describes the session's end: who ended it, and how.
func endingOf(c *format.Cassette) ending {
	for i := len(c.Interactions) - 1; i >= 0; i-- {
		in := &c.Interactions[i]
		if in.Kind != format.KindClose || in.HTTP != nil {
			continue
		}
		return ending{line: c.Line(i), text: describeEnding(in.Ending)}
	}
	return ending{text: "no ending"}
}

// describeEnding says how a session ended, in a few words.
func describeEnding(e *format.Ending) string {
	var parts []string
	switch e.End {
	case format.EndClient:
		parts = append(parts, "closed by the client")
	case format.EndEOF:
		parts = append(parts, "ended by the server")
	case format.EndError:
		parts = append(parts, "reading failed")
	default:
		parts = append(parts, e.End)
	}
	if x := e.Exit; x != nil {
		if x.Signal != "" {
			parts = append(parts, "killed by "+x.Signal)
		} else {
			parts = append(parts, fmt.Sprintf("exit status %d", x.Code))
		}
	}
	if e.Class != 0 {
		parts = append(parts, "class "+e.Class.String())
	}
	if e.Error != "" {
		parts = append(parts, fmt.Sprintf("%q", redact.NormaliseString(e.Error)))
	}
	return strings.Join(parts, ", ")
}
