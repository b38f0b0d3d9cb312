package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each sample counts for the innermost frame of a module: the standard
// library's work for the module that called it, this module's by package;
// a stack with no module frame counts apart.
func TestRead(t *testing.T) {
	in := `File: bench.test
Type: cpu
-----------+-------------------------------------------------------
      30ms   encoding/json.Unmarshal
             github.com/looprig/mcp/server.decodeJSON
             github.com/looprig/mcp/server.validateArgs
             github.com/modelcontextprotocol/go-sdk/mcp.(*Server).callTool
-----------+-------------------------------------------------------
      20ms   github.com/segmentio/encoding/json.Parse
             github.com/modelcontextprotocol/go-sdk/internal/json.Unmarshal
-----------+-------------------------------------------------------
      10ms   runtime.futex
             github.com/looprig/mcp/transport/inprocess.(*conn).Write
-----------+-------------------------------------------------------
         1s  runtime.gcBgMarkWorker
-----------+-------------------------------------------------------
     bytes:  32kB
      40ms   runtime.mallocgc
             github.com/modelcontextprotocol/go-sdk/mcp.call
`
	byModule, byPackage, total, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	wantModule := map[string]float64{"this module": 40e6, "go-sdk's JSON decoder (segmentio)": 20e6, "go-sdk": 40e6, none: 1e9}
	if diff := cmp.Diff(wantModule, byModule); diff != "" {
		t.Errorf("by module mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"server": 30e6, "transport/inprocess": 10e6}, byPackage); diff != "" {
		t.Errorf("by package mismatch (-want +got):\n%s", diff)
	}
	if total != 1.1e9 {
		t.Errorf("total %v, want 1.1e9", total)
	}
}
