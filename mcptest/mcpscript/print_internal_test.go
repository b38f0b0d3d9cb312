package mcpscript

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool's result and an error quoting the server reach a terminal (go test
// -v shows a script's output, mcpcall writes to its own): mcpcall and the
// script's call show their control characters as escapes, lines kept.
func TestPrintedResultsShowControlsAsEscapes(t *testing.T) {
	leakcheck.Check(t)
	const hostile = "clear\x1b[2J osc52\x1b]52;c;ZXZpbA==\x07 title\x1b]0;pwned\x07 c1\u009b bidi\u202e\nsecond line\ttab"
	const want = `clear\x1b[2J osc52\x1b]52;c;ZXZpbA==\x07 title\x1b]0;pwned\x07 c1\u009b bidi\u202e` + "\nsecond line\ttab\n"
	var out strings.Builder
	printResult(&out, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: hostile}}})
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	out.Reset()
	printError(&out, errors.New(hostile))
	if diff := cmp.Diff("error: "+want, out.String()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// diagnose shows a child's stderr, untrusted, with its control characters
// as escapes and its lines kept.
func TestDiagnoseShowsStderrControlsAsEscapes(t *testing.T) {
	leakcheck.Check(t)
	var out strings.Builder
	writeDiagnosis(&out, &transport.Diagnosis{Exited: true, ExitCode: 3, Stderr: []byte("panic: \x1b]0;pwned\x07\nline two\x1b[2J\n")})
	want := "exited: true\nexit-code: 3\nsignal: \nstderr-bytes: 31\nstderr-tail:\n" + `panic: \x1b]0;pwned\x07` + "\n" + `line two\x1b[2J` + "\n\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("diagnose (-want +got):\n%s", diff)
	}
}
