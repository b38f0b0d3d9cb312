package format

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/looprig/mcp/internal/canonjson"
)

// Marshal encodes c in the cassette format, at Version. Encoding is
// deterministic, messages are written canonical, and Parse of the result
// gives c back. It returns an error only for a message that is not JSON.
func (c *Cassette) Marshal() ([]byte, error) {
	n := 128
	for i := range c.Interactions {
		n += len(c.Interactions[i].Message) + len(c.Interactions[i].Text) + 64
	}
	b := make([]byte, 0, n)
	b = append(b, `{"format":`...)
	b = canonjson.AppendString(b, c.Header.Format)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = field(b, "transport", c.Header.Transport, true)
	b = field(b, "protocol", c.Header.Protocol, true)
	b = field(b, "server", c.Header.Server, true)
	if len(c.Header.Volatile) > 0 {
		b = append(b, `,"volatile":`...)
		b = AppendStrings(b, c.Header.Volatile)
	}
	b = field(b, "redaction", c.Header.Redaction, false)
	b = append(b, "}\n"...)
	for i := range c.Interactions {
		var err error
		if b, err = appendLine(b, &c.Interactions[i]); err != nil {
			return nil, &FormatError{File: c.File, Line: c.Line(i), Err: err}
		}
	}
	return append(b, `{"kind":"end"}`+"\n"...), nil
}

// field appends `,"name":"value"`, or nothing for an empty value unless
// always.
func field(b []byte, name, value string, always bool) []byte {
	if value == "" && !always {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return canonjson.AppendString(b, value)
}

func intField(b []byte, name string, v int) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// appendLine appends one interaction's line, its fields in a fixed order.
func appendLine(b []byte, in *Interaction) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = canonjson.AppendString(b, in.Kind)
	b = field(b, "from", in.From, false)
	if h := in.HTTP; h != nil {
		b = intField(b, "stream", h.Stream)
		b = field(b, "method", h.Method, false)
		b = field(b, "url", h.URL, false)
		b = intField(b, "status", h.Status)
		if h.Headers != nil {
			b = append(b, `,"headers":{`...)
			keys := make([]string, 0, len(h.Headers))
			for k := range h.Headers {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for j, k := range keys {
				if j > 0 {
					b = append(b, ',')
				}
				b = canonjson.AppendString(b, k)
				b = append(b, ':')
				if h.Headers[k] == nil {
					b = append(b, "null"...)
					continue
				}
				b = append(b, '[')
				for v, s := range h.Headers[k] {
					if v > 0 {
						b = append(b, ',')
					}
					b = canonjson.AppendString(b, s)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = field(b, "event", h.Event, false)
		b = field(b, "id", h.ID, false)
		b = field(b, "retry", h.Retry, false)
	}
	if e := in.Ending; e != nil {
		b = field(b, "end", e.End, false)
		b = field(b, "error", e.Error, false)
		b = field(b, "class", e.Class.String(), false)
		if e.Written {
			b = append(b, `,"written":true`...)
		}
		if e.Exit != nil {
			b = append(b, `,"exit":{"code":`...)
			b = strconv.AppendInt(b, int64(e.Exit.Code), 10)
			b = field(b, "signal", e.Exit.Signal, false)
			b = append(b, '}')
		}
		b = field(b, "stderr", e.Stderr, false)
		if e.Pending != nil {
			b = append(b, `,"pending":[`...)
			for j, id := range e.Pending {
				if j > 0 {
					b = append(b, ',')
				}
				var err error
				if b, err = canonjson.AppendNested(b, id, 2); err != nil {
					return nil, fmt.Errorf("pending id: %v", err)
				}
			}
			b = append(b, ']')
		}
	}
	if in.Message != nil {
		b = append(b, `,"message":`...)
		var err error
		if b, err = canonjson.AppendNested(b, in.Message, 1); err != nil {
			return nil, fmt.Errorf("message: %v", err)
		}
	}
	b = field(b, "text", in.Text, false)
	return append(b, "}\n"...), nil
}
