package stdio

import (
	"errors"
	"io"

	"github.com/looprig/mcp/transport"
)

// Is makes a StartError match transport.ErrStart, so that a client can
// classify it without knowing this package.
func (e *StartError) Is(target error) bool { return target == transport.ErrStart }

// Is makes a FrameError match transport.ErrLimit and transport.ErrPolicy
// when the frame was over the size limit, and transport.ErrProtocol when it
// was not a JSON-RPC message. A frame cut short because the child died
// matches none: that is the child's exit, not a protocol violation.
func (e *FrameError) Is(target error) bool {
	switch target {
	case transport.ErrLimit, transport.ErrPolicy:
		return e.Limit > 0
	case transport.ErrProtocol:
		return e.Limit == 0 && !errors.Is(e.Err, io.ErrUnexpectedEOF)
	}
	return false
}
