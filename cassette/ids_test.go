package cassette_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
)

// idCassette is a session whose tools/call is sent with id call and
// answered with id answer.
func idCassette(call, answer string) []byte {
	return []byte(depthHeader +
		`{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}` + "\n" +
		`{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}` + "\n" +
		`{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n" +
		`{"kind":"message","from":"client","message":{"id":` + call + `,"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}}` + "\n" +
		`{"kind":"message","from":"server","message":{"id":` + answer + `,"jsonrpc":"2.0","result":{"content":[]}}}` + "\n" +
		`{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n")
}

// TestIDsCompareExactly: a number id is an integer compared by its value
// exactly; one that is not an integer an int64 holds is a *FormatError
// naming its line, never truncated into another id's.
func TestIDsCompareExactly(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct {
		call, answer string
		line         int // of the *FormatError; 0 when it loads
	}{
		{"3", "3", 0},
		{"3", "3.0", 0},
		{"3", "3e0", 0},
		{"300", "3e2", 0},
		{"-3", "-3.00", 0},
		{"0", "-0", 0},
		{`"3"`, `"3"`, 0},
		{"9223372036854775807", "9223372036854775807", 0},
		{"3", "3.5", 6},
		{"3.5", "3", 5},
		{"3.5", "3.5", 5},
		{"3", "3.000001", 6},
		{"3", "30e-1", 0},
		{"3", "31e-1", 6},
		{"9223372036854775807", "9223372036854775808", 6},
		{"9223372036854775808", "9223372036854775808", 5},
		{"9223372036854775808", "9223372036854775809", 5},
		{"1", "1e400", 6},
		{"1", "1e-400", 6},
		{"1", "1e9999999999", 6},
		{`"3"`, "3", 6},
		{"3", `"3"`, 6},
	} {
		_, err := cassette.Parse("ids.jsonl", idCassette(c.call, c.answer))
		var ferr *cassette.FormatError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("call %s answered %s: %v, want it loaded", c.call, c.answer, err)
		case c.line > 0 && (!errors.As(err, &ferr) || ferr.Line != c.line):
			t.Errorf("call %s answered %s: %v, want a *FormatError at line %d", c.call, c.answer, err, c.line)
		case c.line > 0 && !strings.Contains(err.Error(), "id"):
			t.Errorf("call %s answered %s: %v, want the error to name the id", c.call, c.answer, err)
		}
	}
}
