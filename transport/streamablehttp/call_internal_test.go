package streamablehttp

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// parseCall reads the call in a POST body the go-sdk encoded: its id as the
// go-sdk reads it back and as it wrote it, and its method; a notification
// and a response are no call.
func TestParseCallReadsTheGoSDKsEncoding(t *testing.T) {
	for _, raw := range []any{float64(0), float64(7), float64(-3), float64(1 << 53), "7", "a<b>&c", "é\u2028", ""} {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		body, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "tools/call", Params: []byte(`{"name":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		call := parseCall(body)
		if call == nil {
			t.Fatalf("id %#v: no call read from %s", raw, body)
		}
		if call.jid != id || call.method != "tools/call" {
			t.Errorf("id %#v: read id %#v method %q from %s", raw, call.jid.Raw(), call.method, body)
		}
		if !bytes.Contains(body, []byte(`"id":`+call.id()+`,`)) {
			t.Errorf("id %#v: encoded as %s, not as in %s", raw, call.id(), body)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":3,"method":""}`,
	} {
		if diff := cmp.Diff((*callRef)(nil), parseCall([]byte(body)), cmp.AllowUnexported(callRef{})); diff != "" {
			t.Errorf("parseCall(%s) mismatch (-want +got):\n%s", body, diff)
		}
	}
}

// A task request's taskId is read as the go-sdk reads it: the key matches
// case-sensitively, the last of two counts, and only the tasks extension's
// requests that name a task have one.
func TestCallTaskIDReadsAsTheGoSDK(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t1"}}`, "t1"},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"a","taskId":"b"}}`, "b"},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"TASKID":"t1"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskid":"t1"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":["t1"]}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get"}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"taskId":"t1"}}`, ""},
	} {
		call := parseCall([]byte(tc.body))
		if call == nil {
			t.Fatalf("no call read from %s", tc.body)
		}
		if call.taskID != tc.want {
			t.Errorf("%s: taskID %q, want %q", tc.body, call.taskID, tc.want)
		}
	}
}
