package stdio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineSeeds are child outputs on which two readers of newline-delimited
// JSON could part: framing (values across lines, two on a line, white space,
// CRLF, trailing bytes), batches (empty, nested, a call id twice, a call id
// seen in an earlier batch), decoding (key case, duplicates, ids, depth),
// and values past the bound.
var lineSeeds = []string{
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n  \n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} \n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}x\n",
	"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]\n",
	"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n",
	"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n",
	"[]\n",
	"[[]]\n",
	"[1]\n",
	"{\"JSONRPC\":\"2.0\",\"id\":1,\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"ID\":1,\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"Method\":\"ping\"}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"b\"}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n",
	"{\"jsonrpc\":\"2.0\",\"result\":{}}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"" + strings.Repeat("x", 300) + "\"}\n",
	"{\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"result\":\n\"" + strings.Repeat("x", 100) + "\"\n}\n",
	"not json\n",
	"\n\n",
	"",
	"{",
	"null\n",
	"\"s\"\n",
}

// FuzzLineReading reads any child output, in any chunking, through this
// package's read path (the frame bound, then lineConn) and through the
// go-sdk's own (the frame bound, then mcp.IOTransport's connection): both
// read the same messages in the same order, and fail at the same point.
func FuzzLineReading(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s), 7)
		f.Add([]byte(s), 4096)
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk int) {
		chunk = 1 + abs(chunk)%8192
		const limit = 256 // the frame bound: some seeds pass it
		open := func() io.Reader {
			return &frameReader{r: chunkReader{bytes.NewReader(in), chunk}, limit: limit}
		}
		sdkConn, err := (&mcp.IOTransport{Reader: io.NopCloser(open()), Writer: nopWriteCloser{}, MaxLineLength: 2*limit + 2}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := readAll(sdkConn)
		got := readAll(newLineConn(open(), nopWriteCloser{}, 2*limit+2))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("on %.300q (chunk %d): reading mismatch (-go-sdk +lineConn):\n%s", in, chunk, diff)
		}
	})
}

// readAll reads conn up to its first error and closes it: each message in
// comparable form, then "error".
func readAll(conn mcp.Connection) []string {
	defer conn.Close()
	var out []string
	for {
		msg, err := conn.Read(context.Background())
		if err != nil {
			return append(out, "error")
		}
		out = append(out, flatten(msg))
	}
}

// flatten writes every field of msg.
func flatten(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request id=%#v method=%q params=%q", m.ID.Raw(), m.Method, m.Params)
	case *jsonrpc.Response:
		return fmt.Sprintf("response id=%#v result=%q error=%#v", m.ID.Raw(), m.Result, m.Error)
	}
	return fmt.Sprintf("%T", msg)
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

// TestLineBatchAnswers answers a batch of calls out of order, with a
// notification and a lone answer between, through lineConn and through the
// go-sdk's connection: both write the same bytes. The lone answer goes out
// at once, the batch's answers together, in the calls' order, once both are
// there; a batch holding a notification is never answered, by either (the
// go-sdk waits for an answer to the notification too).
func TestLineBatchAnswers(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":"two","method":"b"}]`
	const withNote = `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"two","method":"b"}]`
	two, _ := jsonrpc.MakeID("two")
	one, _ := jsonrpc.MakeID(float64(1))
	lone, _ := jsonrpc.MakeID(float64(7))
	writes := []jsonrpc.Message{
		&jsonrpc.Response{ID: two, Result: []byte(`{"b":2}`)},
		&jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{}`)},
		&jsonrpc.Response{ID: lone, Result: []byte(`{}`)},
		&jsonrpc.Response{ID: one, Result: []byte(`{"a": 1}`)},
	}
	run := func(conn mcp.Connection, reads int) {
		t.Helper()
		for range reads {
			if _, err := conn.Read(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for _, msg := range writes {
			if err := conn.Write(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
	}
	for _, tc := range []struct {
		name, in string
		reads    int
		want     string
	}{
		{"batch", batch, 2, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" +
			`[{"jsonrpc":"2.0","id":1,"result":{"a":1}},{"jsonrpc":"2.0","id":"two","result":{"b":2}}]` + "\n"},
		{"batch with a notification", withNote, 3, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sdkOut, gotOut bytes.Buffer
			sdkConn, err := (&mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(tc.in + "\n")), Writer: writeCloser{&sdkOut}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			run(sdkConn, tc.reads)
			run(newLineConn(strings.NewReader(tc.in+"\n"), writeCloser{&gotOut}, 1<<20), tc.reads)
			if diff := cmp.Diff(sdkOut.String(), gotOut.String()); diff != "" {
				t.Errorf("written mismatch (-go-sdk +lineConn):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, gotOut.String()); diff != "" {
				t.Errorf("written mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
