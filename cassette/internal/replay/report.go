package replay

import (
	"errors"
	"sync"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Report keeps a session's mismatches: the errors Config.Errors made of
// them.
type Report struct {
	mu   sync.Mutex
	errs []error
}

// Add keeps err.
func (r *Report) Add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

// Mismatch returns the kept mismatch that err is or wraps, or that err, a
// JSON-RPC error replay answered a request with, stands for; nil if err is
// none.
func (r *Report) Mismatch(err error) error {
	var wire *jsonrpc.Error
	onWire := errors.As(err, &wire) && wire.Code == errs.CodeMismatch
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		if errors.Is(err, e) || onWire && e.Error() == wire.Message {
			return e
		}
	}
	return nil
}

// First returns the first error kept; nil for none.
func (r *Report) First() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) == 0 {
		return nil
	}
	return r.errs[0]
}
