package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// apidiff's report in module mode, as it writes it (its lines taken from a
// run against v0.1.0, and a fabricated incompatible section).
const apidiffReport = `Incompatible changes:
- ./client.DefaultImplementation: changed from func() *github.com/modelcontextprotocol/go-sdk/mcp.Implementation to func(...int) *github.com/modelcontextprotocol/go-sdk/mcp.Implementation
- ./transport/stdio.(*Transport).Close: removed
- package github.com/looprig/mcp/transport/sse: removed

Compatible changes:
- ./auth.DPoPKey: added
- ./mcptest.AuthCounts.DPoPProofs: added
- ./server.HTTPOptions.MaxSessions: added
- package github.com/looprig/mcp/failure: added
`

func TestParseReport(t *testing.T) {
	got, err := ParseReport(strings.NewReader(apidiffReport))
	if err != nil {
		t.Fatal(err)
	}
	want := Report{
		Incompatible: []Change{
			{"client", "DefaultImplementation: changed from func() *github.com/modelcontextprotocol/go-sdk/mcp.Implementation to func(...int) *github.com/modelcontextprotocol/go-sdk/mcp.Implementation"},
			{"transport/stdio", "(*Transport).Close: removed"},
			{"github.com/looprig/mcp/transport/sse", "package removed"},
		},
		Compatible: []Change{
			{"auth", "DPoPKey: added"},
			{"mcptest", "AuthCounts.DPoPProofs: added"},
			{"server", "HTTPOptions.MaxSessions: added"},
			{"github.com/looprig/mcp/failure", "package added"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseReport mismatch (-want +got):\n%s", diff)
	}
}

func TestParseReportEmpty(t *testing.T) {
	got, err := ParseReport(strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Report{}, got); diff != "" {
		t.Errorf("ParseReport mismatch (-want +got):\n%s", diff)
	}
}

// A report apicheck cannot read fails the check: a changed format must not
// pass as "no change".
func TestParseReportRefusesWhatItCannotPlace(t *testing.T) {
	for _, text := range []string{
		"- ./auth.X: added\n",                         // a change before any section
		"Incompatible changes:\n- auth.X: removed\n",  // not ./
		"Incompatible changes:\n- ./auth: removed\n",  // no identifier
		"Incompatible changes:\n- ./auth.X removed\n", // no colon
		"Incompatible changes:\n- package x removed\n",
		"Breaking changes:\n- ./auth.X: removed\n", // an unknown section
	} {
		if _, err := ParseReport(strings.NewReader(text)); err == nil {
			t.Errorf("ParseReport(%q): nil error, want one", text)
		}
	}
}

func TestReportWriteGroupsByPackage(t *testing.T) {
	rep, err := ParseReport(strings.NewReader(apidiffReport))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.Write(&b)
	want := `incompatible changes: 3
  client (1)
    DefaultImplementation: changed from func() *github.com/modelcontextprotocol/go-sdk/mcp.Implementation to func(...int) *github.com/modelcontextprotocol/go-sdk/mcp.Implementation
  github.com/looprig/mcp/transport/sse (1)
    package removed
  transport/stdio (1)
    (*Transport).Close: removed
compatible changes: 4
  auth (1)
    DPoPKey: added
  github.com/looprig/mcp/failure (1)
    package added
  mcptest (1)
    AuthCounts.DPoPProofs: added
  server (1)
    HTTPOptions.MaxSessions: added
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Write mismatch (-want +got):\n%s", diff)
	}
}
