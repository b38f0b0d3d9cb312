package stdio

import (
	"errors"
	"io"

	"github.com/looprig/mcp/transport"
)

// Is makes a StartError match transport.ErrStart, so that a client can
// classify it without knowing this package.
func (e *StartError) Is(target error) bool { return target == transport.ErrStart }

// Is makes a FrameError match transport.ErrPolicy when the frame was over
// the size limit, and transport.ErrProtocol when it was not a JSON-RPC
// message. A frame cut short because the child died matches neither: that
// is the child's exit, not a protocol violation.
func (e *FrameError) Is(target error) bool {
	switch target {
	case transport.ErrPolicy:
		return errors.Is(e.Err, ErrFrameTooLarge)
	case transport.ErrProtocol:
		return !errors.Is(e.Err, ErrFrameTooLarge) && !errors.Is(e.Err, io.ErrUnexpectedEOF)
	}
	return false
}
