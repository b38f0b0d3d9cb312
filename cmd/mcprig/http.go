package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/looprig/mcp/cassette"
)

// errHTTPUnsupported is returned by the HTTP forms of record and replay until
// the cassette package records and replays HTTP sessions.
var errHTTPUnsupported = errors.New("not yet supported: the cassette package cannot record or replay HTTP sessions yet")

func recordHTTP(_ context.Context, _ *recordFlags, _ *cassette.Options, _, stderr io.Writer) int {
	fmt.Fprintf(stderr, "mcprig record --upstream: %v\n", errHTTPUnsupported)
	return 1
}

func replayHTTP(_ context.Context, _ *replayFlags, _ *cassette.Cassette, _ *cassette.Options, _, stderr io.Writer) int {
	fmt.Fprintf(stderr, "mcprig replay --listen: %v\n", errHTTPUnsupported)
	return 1
}
