package streamablehttp_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCodesClassify pins the folded code errors (ErrStreamDropped,
// ErrResponseMismatch, ErrRedirectRefused, ErrRefused): a call sees only a
// JSON-RPC error's code and message, as the go-sdk hands it on. Each code
// matches itself and no other code, and Classify gives its class.
func TestCodesClassify(t *testing.T) {
	f, err := streamablehttp.New("https://mcp.example/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int64]error{
		streamablehttp.CodeStreamDropped:    transport.ErrBroken,
		streamablehttp.CodeResponseMismatch: transport.ErrProtocol,
		streamablehttp.CodeRedirectRefused:  transport.ErrPolicy,
		streamablehttp.CodeRefused:          transport.ErrServer,
		transport.CodeLimit:                 transport.ErrPolicy,
		transport.CodeTimeout:               transport.ErrTimeout,
		-32603:                              nil, // the go-sdk's internal error: no class of this transport's
	}
	for code, class := range codes {
		// As the go-sdk delivers it: a wire error of that code, wrapped.
		got := fmt.Errorf("calling \"tool\": %w", &jsonrpc.Error{Code: code, Message: "x"})
		if c := f.Classify(got); c != class {
			t.Errorf("code %d: Classify = %v, want %v", code, c, class)
		}
		for other := range codes {
			if errors.Is(got, &jsonrpc.Error{Code: other}) != (other == code) {
				t.Errorf("code %d: errors.Is(err, code %d) = %v", code, other, other != code)
			}
		}
	}
}
