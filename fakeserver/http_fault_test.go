package fakeserver

import (
	"errors"
	"github.com/looprig/mcp/transport"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseHTTPFault(t *testing.T) {
	tests := []struct {
		in   string
		want Fault
	}{
		{"drop=lookup:1", Fault{Kind: FaultDrop, Tool: "lookup", Events: 1}},
		{"drop-no-id=lookup:0", Fault{Kind: FaultDropNoID, Tool: "lookup"}},
		{"delay-headers:2s", Fault{Kind: FaultDelayHeaders, Delay: 2 * time.Second}},
		{"delay-headers=lookup:50ms", Fault{Kind: FaultDelayHeaders, Tool: "lookup", Delay: 50 * time.Millisecond}},
		{"unauthorized", Fault{Kind: FaultUnauthorized}},
		{"forbidden=lookup", Fault{Kind: FaultForbidden, Tool: "lookup"}},
		{"gone=lookup", Fault{Kind: FaultGone, Tool: "lookup"}},
		{"no-get", Fault{Kind: FaultNoGet}},
		{"server-error", Fault{Kind: FaultServerError}},
		{"server-error=lookup:503", Fault{Kind: FaultServerError, Tool: "lookup", Status: 503}},
		{"server-error:599", Fault{Kind: FaultServerError, Status: 599}},
		{"redirect", Fault{Kind: FaultRedirect}},
		{"redirect:308", Fault{Kind: FaultRedirect, Status: 308}},
		{"redirect=lookup:307", Fault{Kind: FaultRedirect, Tool: "lookup", Status: 307}},
		{"foreign-endpoint", Fault{Kind: FaultForeignEndpoint}},
	}
	for _, tt := range tests {
		got, err := ParseFault(tt.in)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFault(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if again, err := ParseFault(got.String()); err != nil || again != got {
			t.Errorf("ParseFault(%q.String() = %q) = %v, %v; want %v", tt.in, got.String(), again, err, got)
		}
	}
}

func TestParseHTTPFaultErrors(t *testing.T) {
	for _, in := range []string{
		"drop", "drop=lookup", "drop=lookup:-1", "drop=lookup:x", "drop-no-id:1",
		"delay-headers", "delay-headers:0s", "gone", "no-get=lookup", "no-get:1",
		"redirect:200", "redirect:503", "redirect:x", "foreign-endpoint=lookup",
		"server-error:499", "server-error:600", "server-error:307", "server-error=lookup:x",
	} {
		if f, err := ParseFault(in); !errors.Is(err, transport.ErrBadFault) {
			t.Errorf("ParseFault(%q) = %v, %v; want transport.ErrBadFault", in, f, err)
		}
	}
}
