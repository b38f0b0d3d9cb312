package replay

import (
	"errors"
	"sync"

	"github.com/looprig/mcp/cassette/internal/errs"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Report keeps a session's mismatches.
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

// Mismatch returns the *errs.MismatchError that err, a JSON-RPC error replay
// answered a request with, stands for; nil if err is none.
func (r *Report) Mismatch(err error) *errs.MismatchError {
	var merr *errs.MismatchError
	if errors.As(err, &merr) {
		return merr
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != errs.CodeMismatch {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		if errors.As(e, &merr) && merr.Error() == wire.Message {
			return merr
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
