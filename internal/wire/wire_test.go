package wire

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/segmentio/encoding/json"
)

// seeds are inputs on which two JSON readers are known to part: key case,
// duplicates, trailing bytes, ids that do not survive a float64, depth, and
// values longer than the go-sdk decoder's first 32 KiB read.
var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_Meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","PARAMS":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"params":{"name":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":1}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"7","method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no","data":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":3,"error":null}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} trailing`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`  {"jsonrpc":"2.0","id":1,"method":"ping"}  `,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	`[]`,
	`[1]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}] x`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\u00e9\ud800"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}",
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\"}{["}}`,
	``,
	`   `,
	`null`,
	`{`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"`,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + nested(MaxDepth-1) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + nested(MaxDepth) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}` + strings.Repeat("[", MaxDepth+1),
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 32760) + `","flag":true}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 32745) + `","n":12345678}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("\\\"", 20000) + `"}}`,
	// Notification parameters (client/divert.go).
	`{"level":"info","logger":"l","data":{"a":[1,2.5,null,"\u00e9"]},"_meta":{"k":1}}`,
	`{"Level":"warning","level":"info","DATA":1}`,
	`{"level":5}`,
	`null`,
	`{"progressToken":"t","progress":0.5,"total":1,"message":"m"}`,
	`{"progressToken":{"a":1},"progress":"half"}`,
}

func nested(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }

// flat is a message with every field in comparable form.
type flat struct {
	Kind, Method          string
	ID                    any
	Params, Result, Error string
}

func flatten(m jsonrpc.Message) flat {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return flat{Kind: "request", ID: m.ID.Raw(), Method: m.Method, Params: string(m.Params)}
	case *jsonrpc.Response:
		f := flat{Kind: "response", ID: m.ID.Raw(), Result: string(m.Result)}
		if m.Error != nil {
			f.Error = fmt.Sprintf("%#v", m.Error)
		}
		return f
	}
	return flat{Kind: fmt.Sprintf("%T", m)}
}

// sameOutcome fails t unless both readings refused data or both read the
// same message.
func sameOutcome(t *testing.T, data []byte, got jsonrpc.Message, gotErr error, want jsonrpc.Message, wantErr error) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("on %.200q: error %v, the go-sdk's %v", data, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if diff := cmp.Diff(flatten(want), flatten(got)); diff != "" {
		t.Fatalf("on %.200q: message mismatch (-go-sdk +wire):\n%s", data, diff)
	}
}

// FuzzDecodeMessage reads every input with DecodeMessage and with the
// go-sdk's own jsonrpc.DecodeMessage: both refuse it, or both read the same
// message.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, gotErr := DecodeMessage(data)
		sameOutcome(t, data, got, gotErr, want, wantErr)
	})
}

// goSDKUnmarshal is the decoder configured as the go-sdk configures its
// own: a streaming segmentio decoder over the input, matching keys
// case-sensitively. (The go-sdk's depth bound is exercised through
// jsonrpc.DecodeMessage, which applies it.)
func goSDKUnmarshal(data []byte, v any) error {
	if tooDeep(data) {
		return ErrTooDeep
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// goSDKReadBatch is the go-sdk's reading of a body or a line, over its own
// exported DecodeMessage.
func goSDKReadBatch(data []byte) ([]jsonrpc.Message, bool, error) {
	var raw []stdjson.RawMessage
	if goSDKUnmarshal(data, &raw) == nil {
		if len(raw) == 0 {
			return nil, true, fmt.Errorf("empty batch")
		}
		var msgs []jsonrpc.Message
		for _, r := range raw {
			msg, err := jsonrpc.DecodeMessage(r)
			if err != nil {
				return nil, true, err
			}
			msgs = append(msgs, msg)
		}
		return msgs, true, nil
	}
	msg, err := jsonrpc.DecodeMessage(data)
	return []jsonrpc.Message{msg}, false, err
}

// FuzzReadBatch compares ReadBatch with the go-sdk's reading of a body.
func FuzzReadBatch(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantBatch, wantErr := goSDKReadBatch(data)
		got, gotBatch, gotErr := ReadBatch(data)
		if (gotErr != nil) != (wantErr != nil) || gotBatch != wantBatch {
			t.Fatalf("on %.200q: batch %v error %v, the go-sdk's batch %v error %v", data, gotBatch, gotErr, wantBatch, wantErr)
		}
		if gotErr != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("on %.200q: %d messages, the go-sdk's %d", data, len(got), len(want))
		}
		for i := range got {
			sameOutcome(t, data, got[i], nil, want[i], nil)
		}
	})
}

// meta is how a server reads the revision a request names: the keys of its
// params' _meta.
type meta struct {
	Method string `json:"method"`
	Params struct {
		Name string                        `json:"name"`
		Meta map[string]stdjson.RawMessage `json:"_meta"`
	} `json:"params"`
}

// FuzzUnmarshal compares Unmarshal with the go-sdk's configuration of the
// decoder, into the shapes this module reads messages into.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newV := range []func() any{
			func() any { return new(meta) },
			func() any { return new(map[string]any) },
			func() any { return new(any) },
			func() any { return new([]stdjson.RawMessage) },
			// The parameters of the notifications the client takes from
			// the connection (client/divert.go), decoded as the go-sdk's
			// handler decodes them: into a pointer, left nil by null.
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
			func() any { return new(*mcp.LoggingMessageParams) },
			func() any { return new(*mcp.ProgressNotificationParams) },
		} {
			want, got := newV(), newV()
			wantErr := goSDKUnmarshal(data, want)
			gotErr := Unmarshal(data, got)
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("%T on %.200q: error %v, the go-sdk's %v", got, data, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			// reflect.DeepEqual first: a diff of 1,000 nested arrays is slow.
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%T on %.200q: mismatch (-go-sdk +wire):\n%s", got, data, cmp.Diff(want, got))
			}
		}
	})
}

// TestReadsAsTheGoSDK names what the go-sdk reads from the inputs on which
// readers part, so that a change of either shows here as well as in the
// fuzz targets.
func TestReadsAsTheGoSDK(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     meta
		wantErr  bool
	}{
		{"exact", seeds[0], meta{Method: "tools/call"}, false},
		{"_META is not _meta", seeds[1], meta{Method: "tools/call"}, false},
		{"_Meta is not _meta", seeds[2], meta{Method: "tools/call"}, false},
		{"PARAMS is not params", seeds[3], meta{Method: "tools/call"}, false},
		{"Method is not method", seeds[4], meta{}, false},
		{"the last duplicate wins", seeds[5], meta{Method: "b"}, false},
		{"bytes after the value are ignored", seeds[25], meta{Method: "ping"}, false},
		{"depth 1000", seeds[42], meta{Method: "ping"}, false},
		{"depth 1001", seeds[43], meta{}, true},
		{"depth counted after the value", seeds[44], meta{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got meta
			err := Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Unmarshal error %v, want error %v", err, tc.wantErr)
			}
			got.Params.Meta = nil
			got.Params.Name = ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Unmarshal mismatch (-want +got):\n%s", diff)
			}
			_, sdkErr := jsonrpc.DecodeMessage([]byte(tc.in))
			if tc.in != seeds[4] && (sdkErr != nil) != tc.wantErr {
				t.Errorf("the go-sdk's DecodeMessage error %v, want error %v", sdkErr, tc.wantErr)
			}
		})
	}
	var m meta
	if err := Unmarshal([]byte(seeds[1]), &m); err != nil || m.Params.Meta != nil {
		t.Errorf("a _META key was read as _meta: %v, %v", m.Params.Meta, err)
	}
	if err := Unmarshal([]byte(seeds[0]), &m); err != nil || m.Params.Meta == nil {
		t.Errorf("a _meta key was not read: %v, %v", m.Params.Meta, err)
	}
}

// TestNoBufferPerMessage is the point of reading here rather than through
// the go-sdk's decoder: a small message costs a small allocation.
func TestNoBufferPerMessage(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeMessage(data); err != nil {
			t.Fatal(err)
		}
	})
	var ms runtimeBytes
	ms.measure(func() { _, _ = DecodeMessage(data) })
	if ms.perCall > 4096 {
		t.Errorf("DecodeMessage of a %d-byte notification allocates %d bytes (%v allocations), want at most 4096", len(data), ms.perCall, allocs)
	}
}

// runtimeBytes measures the bytes a function allocates per call.
type runtimeBytes struct{ perCall uint64 }

func (r *runtimeBytes) measure(f func()) {
	const n = 1000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	r.perCall = (after.TotalAlloc - before.TotalAlloc) / n
}

// tooDeep refuses more than MaxDepth brackets open at once, at the edge,
// whatever the shortcuts see: brackets in strings count for nothing, and
// closed ones free their depth.
func TestTooDeepAtTheEdge(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"MaxDepth open", strings.Repeat("[", MaxDepth), false},
		{"MaxDepth+1 open", strings.Repeat("[", MaxDepth+1), true},
		{"MaxDepth+1 objects", strings.Repeat("{", MaxDepth+1), true},
		{"MaxDepth+1 mixed", strings.Repeat("[{", (MaxDepth+1)/2) + "[", true},
		{"MaxDepth+1 after a short string", `"a"` + strings.Repeat("[", MaxDepth+1), true},
		{"many in a string", `"` + strings.Repeat("[", 3*MaxDepth) + `"`, false},
		{"many in a string, escaped quote", `"\"` + strings.Repeat("[", 3*MaxDepth) + `"`, false},
		{"many closed one by one", strings.Repeat("[]", 3*MaxDepth), false},
		{"MaxDepth deep after a string of brackets", `["` + strings.Repeat("{", 3*MaxDepth) + `",` + strings.Repeat("[", MaxDepth-1), false},
		{"MaxDepth+1 deep after a string of brackets", `["` + strings.Repeat("{", 3*MaxDepth) + `",` + strings.Repeat("[", MaxDepth), true},
	} {
		if got := tooDeep([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: tooDeep = %v, want %v", tc.name, got, tc.want)
		}
	}
}
