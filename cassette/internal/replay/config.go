package replay

import (
	"time"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/cassette/internal/hook"
	"github.com/looprig/mcp/cassette/internal/redact"
)

// Config is what a replay is played with. Package cassette builds it from
// its Options.
type Config struct {
	Wait        time.Duration   // how long an answer is held for what it waits on
	Faults      []format.Fault  // the faults injected
	IgnorePaths []string        // the paths matching ignores, besides the cassette's volatile ones
	Hooks       []hook.Hook     // run on the exchanges replayed at the HTTP level
	Redact      redact.Config   // what live messages are redacted with before matching
	Secret      map[string]bool // the canonical names of the headers whose values are credentials
	Errors      *errs.Errors    // makes the errors users branch on
}
