package redact

import (
	"fmt"
	"regexp"

	"github.com/looprig/mcp/cassette/internal/format"
)

// W3C trace context (traceparent) carries a trace id and a span id that
// differ on every run. A traced session would give other bytes at each
// recording. RenameTraceContext gives them stable names instead.
//
// It renames the ids of every traceparent value: a JSON member named
// "traceparent" (in _meta, where MCP carries trace context) and the
// traceparent HTTP header. The n-th trace id written becomes n in 32 hex
// digits; the n-th span id, n in 16. The version and the flags stay, so
// the value is still valid. Matching ignores trace context, so a replay
// with live ids still matches. tracestate and baggage are vendor data and
// are kept as recorded.
func RenameTraceContext(c *format.Cassette) {
	t := traceNames{trace: map[string]string{}, span: map[string]string{}}
	for i := range c.Interactions {
		in := &c.Interactions[i]
		if len(in.Message) > 0 && traceMember.Match(in.Message) {
			in.Message = traceMember.ReplaceAllFunc(in.Message, func(m []byte) []byte {
				sub := traceMember.FindSubmatch(m)
				return []byte(`"traceparent":"` + t.rename(string(sub[1]), string(sub[2]), string(sub[3]), string(sub[4])) + `"`)
			})
		}
		if in.HTTP == nil || len(in.HTTP.Headers.Values("Traceparent")) == 0 {
			continue
		}
		cp := *in.HTTP
		cp.Headers = in.HTTP.Headers.Clone()
		vs := cp.Headers.Values("Traceparent")
		for j, v := range vs {
			if sub := traceValue.FindStringSubmatch(v); sub != nil {
				vs[j] = t.rename(sub[1], sub[2], sub[3], sub[4])
			}
		}
		in.HTTP = &cp
	}
}

var (
	traceMember = regexp.MustCompile(`"traceparent":"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})"`)
	traceValue  = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)
)

// traceNames maps the trace and span ids of a session to their new names,
// in the order written.
type traceNames struct {
	trace, span map[string]string
}

func (t *traceNames) rename(version, trace, span, flags string) string {
	return version + "-" + name(t.trace, trace, "%032x") + "-" + name(t.span, span, "%016x") + "-" + flags
}

// name returns id's name in names, giving it the next one if it has none.
func name(names map[string]string, id, format string) string {
	if n, ok := names[id]; ok {
		return n
	}
	n := fmt.Sprintf(format, len(names)+1)
	names[id] = n
	return n
}
