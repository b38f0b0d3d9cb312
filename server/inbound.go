package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/looprig/mcp/internal/httpserve"
	"github.com/looprig/mcp/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inbound is the body of a POST, read before the go-sdk sees it, exactly
// as the go-sdk will read it (internal/wire).
type inbound struct {
	msgs []jsonrpc.Message // nil when the go-sdk will refuse the body as malformed
	envs []wire.Envelope   // the ids as sent, one per message
}

// requests returns the requests (calls and notifications) of in.
func (in *inbound) requests() []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, m := range in.msgs {
		if r, ok := m.(*jsonrpc.Request); ok {
			out = append(out, r)
		}
	}
	return out
}

// carriesVersion reports whether a request of in names a protocol version
// in its _meta, as the go-sdk reads it.
func (in *inbound) carriesVersion() bool {
	return slices.ContainsFunc(in.requests(), func(r *jsonrpc.Request) bool { return wire.ProtocolVersion(r.Params) != "" })
}

// has reports whether in holds a request for method.
func (in *inbound) has(method string) bool {
	return slices.ContainsFunc(in.requests(), func(r *jsonrpc.Request) bool { return r.Method == method })
}

// single returns in's only message, if it has one and it is not a batch.
func (in *inbound) single() (*jsonrpc.Request, []byte, bool) {
	if len(in.msgs) != 1 {
		return nil, nil, false
	}
	r, ok := in.msgs[0].(*jsonrpc.Request)
	return r, in.envs[0].ID, ok
}

// A refusal answers a request that is refused before the go-sdk sees it.
// It holds an HTTP status and a JSON-RPC error. The error's id is the
// request's own as sent, or null where it has none that can be carried
// back. A refusal
// with status 202 is an acceptance of what needs no answer: no body.
type refusal struct {
	status int
	code   int64
	msg    string
	id     []byte // nil: null
	retry  bool   // set Retry-After
}

func (r *refusal) write(w http.ResponseWriter) {
	if r.status == http.StatusAccepted {
		w.WriteHeader(r.status) // accepted with nothing to answer
		return
	}
	id := []byte("null")
	if r.id != nil {
		id = r.id
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: r.code, Message: r.msg})
	w.Header().Set("Content-Type", "application/json")
	if r.retry {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(r.status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`+"\n", id, e)
}

// readPOST reads req's body within maxBody bytes and timeout, and puts it
// back for the go-sdk. It checks the body as the go-sdk will read it. Two
// things are refused with -32600 and id null. One is a message the go-sdk
// would read otherwise than another reader (wire.Envelopes). The other is
// a request whose id the go-sdk cannot carry back unchanged (wire.SameID).
// A null id, which the go-sdk takes for a notification, is among them. A
// body the go-sdk will refuse as
// malformed is passed on (in.msgs nil): its refusal is the go-sdk's. With
// batches false the body is one message, as the legacy SSE transport reads
// it. A nil *inbound with a nil *refusal means the failure to read the
// body has been answered.
func readPOST(w http.ResponseWriter, req *http.Request, maxBody int64, timeout time.Duration, batches bool) (*inbound, *refusal) {
	b, err := httpserve.ReadBody(w, req, maxBody, timeout)
	if err != nil {
		switch _, tooLarge := err.(*http.MaxBytesError); {
		case tooLarge:
			http.Error(w, fmt.Sprintf("mcp: request body exceeds the %d-byte limit", maxBody), http.StatusRequestEntityTooLarge)
		case httpserve.IsTimeout(err):
			http.Error(w, fmt.Sprintf("mcp: request body not read within %v (HTTPOptions.BodyTimeout)", timeout), http.StatusRequestTimeout)
		default:
			http.Error(w, "mcp: reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return nil, nil
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	in := &inbound{}
	if batches {
		in.msgs, _, err = wire.ReadBatch(b)
	} else {
		var m jsonrpc.Message
		if m, err = wire.DecodeMessage(b); err == nil {
			in.msgs = []jsonrpc.Message{m}
		}
	}
	if err != nil {
		return &inbound{}, nil
	}
	if in.envs, err = wire.Envelopes(b); err != nil {
		return nil, &refusal{status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest, msg: "mcp: " + err.Error()}
	}
	for i, m := range in.msgs {
		if r, ok := m.(*jsonrpc.Request); ok && in.envs[i].ID != nil {
			if rf := checkID(in.envs[i].ID, r.ID); rf != nil {
				rf.status = http.StatusBadRequest
				return nil, rf
			}
		}
	}
	return in, nil
}

// checkID refuses a request whose id, sent as raw, the go-sdk cannot carry
// back unchanged in its reply (id).
func checkID(raw []byte, id jsonrpc.ID) *refusal {
	switch {
	case !id.IsValid():
		return &refusal{code: jsonrpc.CodeInvalidRequest,
			msg: "mcp: a request whose id is null cannot be answered: the server reads it as a notification; use a string or an integer id"}
	case !wire.SameID(raw, id):
		return &refusal{code: jsonrpc.CodeInvalidRequest,
			msg: fmt.Sprintf("mcp: request id %.64s cannot be answered as sent (it would come back as %v); use a string, or an integer of at most 2^53 in magnitude", raw, id.Raw())}
	}
	return nil
}

// duplicateHeader refuses a request that sends an Mcp-* header more than
// once: readers differ on which value counts (the go-sdk reads the first).
// A header mirrored from the body is refused with -32020, header mismatch;
// Mcp-Session-Id with -32600.
func duplicateHeader(req *http.Request) *refusal {
	for name, values := range req.Header {
		if len(values) < 2 || !strings.HasPrefix(name, "Mcp-") {
			continue
		}
		code := int64(mcp.CodeHeaderMismatch)
		if name == "Mcp-Session-Id" {
			code = jsonrpc.CodeInvalidRequest
		}
		return &refusal{status: http.StatusBadRequest, code: code, msg: fmt.Sprintf("mcp: header %s is sent %d times; send it once", name, len(values))}
	}
	return nil
}
