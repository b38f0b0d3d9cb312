package cassette

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// canonicalMessage must give exactly the bytes of the general path,
// canonical(jsonrpc.EncodeMessage(m)), whenever it takes a message.
func checkCanonicalMessage(t *testing.T, m jsonrpc.Message) {
	t.Helper()
	got, ok, err := canonicalMessage(m)
	data, encErr := jsonrpc.EncodeMessage(m)
	if encErr != nil {
		if ok {
			t.Errorf("canonicalMessage(%v) = %q, but EncodeMessage fails: %v", m, got, encErr)
		}
		return
	}
	want, wantErr := canonical(data)
	if !ok {
		return // the general path handles it
	}
	if err != nil || wantErr != nil {
		if (err == nil) != (wantErr == nil) {
			t.Errorf("canonicalMessage(%s): err %v, general path err %v", data, err, wantErr)
		}
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("canonicalMessage(%s) mismatch (-want +got):\n%s", data, diff)
	}
}

func mustID(t testing.TB, v any) jsonrpc.ID {
	if n, ok := v.(int64); ok {
		v = float64(n) // MakeID takes ids as encoding/json decodes them
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestCanonicalMessageMatchesGeneralPath(t *testing.T) {
	params := []string{``, `null`, `{}`, `{"b":1,"a":{"d":[1,{"z":0,"y":"<&>"}],"c":"\u00e9\n"}}`, ` { "x" : 1 } `, `[1,2]`, `"s"`}
	for _, p := range params {
		for _, id := range []any{nil, int64(0), int64(-7), "abc", "a\"b", "é"} {
			var jid jsonrpc.ID
			if id != nil {
				jid = mustID(t, id)
			}
			for _, method := range []string{"", "tools/call", "notifications/x", "we\"ird", "naïve"} {
				checkCanonicalMessage(t, &jsonrpc.Request{ID: jid, Method: method, Params: json.RawMessage(p)})
			}
			checkCanonicalMessage(t, &jsonrpc.Response{ID: jid, Result: json.RawMessage(p)})
		}
	}
	checkCanonicalMessage(t, &jsonrpc.Response{ID: mustID(t, int64(1)), Error: &jsonrpc.Error{Code: -32601, Message: "no"}})
}

func FuzzCanonicalMessage(f *testing.F) {
	f.Add(int64(1), "tools/call", []byte(`{"name":"lookup","arguments":{"query":"x"}}`), true)
	f.Add(int64(2), "", []byte(`{"content":[{"type":"text","text":"a"}],"isError":false}`), false)
	f.Fuzz(func(t *testing.T, id int64, method string, body []byte, request bool) {
		if !json.Valid(body) || id > 1<<53 || id < -(1<<53) {
			return // ids travel as float64 in MakeID
		}
		if request {
			checkCanonicalMessage(t, &jsonrpc.Request{ID: mustID(t, id), Method: method, Params: body})
		} else {
			checkCanonicalMessage(t, &jsonrpc.Response{ID: mustID(t, id), Result: body})
		}
	})
}
