package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/internal/testkit"
)

// The hostile cassette corpus: files a pull request could bring, made here
// (nothing large is kept in git), each run through every way in: Load,
// Open (replay), inspect in each format, diff, verify against the fake
// and replay. Each way must end with a typed error or with output that
// shows no control character raw, within its own deadline, its heap
// counted against the file's size.

// esc is what a recorded string carries to a terminal, as JSON writes it:
// clear screen, an OSC 8 link whose text lies, an OSC 52 clipboard write,
// a window title, a C1 CSI, a bidi override and isolate, a zero-width
// space, a carriage return.
const esc = `\u001b[2J\u001b]8;;https://evil.example\u001b\\docs\u001b]8;;\u001b\\\u001b]52;c;ZXZpbGNt\u0007\u001b]0;pwned\u0007` + "\u009b2J\u202e\u2066\u200b" + `\r`

const corpusHeader = `{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"s` + esc + `"}` + "\n"

// hostileSession is a session with esc in every string a line holds:
// names, versions, instructions, a tool's name, description and schema, a
// call's arguments, a log message, a notification's method, a result, an
// error, a string id, the ending's stderr and error.
func hostileSession(extra string) string {
	lines := []string{
		`{"kind":"message","from":"client","message":{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c` + esc + `","version":"v` + esc + `"},"protocolVersion":"2025-11-25"}}}`,
		`{"kind":"message","from":"server","message":{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"logging":{},"tools":{}},"instructions":"i` + esc + `","protocolVersion":"2025-11-25","serverInfo":{"name":"s` + esc + `","version":"v` + esc + `"}}}}`,
		`{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}}`,
		`{"kind":"message","from":"client","message":{"id":2,"jsonrpc":"2.0","method":"tools/list","params":{}}}`,
		`{"kind":"message","from":"server","message":{"id":2,"jsonrpc":"2.0","result":{"tools":[{"description":"d` + esc + `","inputSchema":{"properties":{"q` + esc + `":{"description":"p` + esc + `","type":"string"}},"type":"object"},"name":"t` + esc + `"}]}}}`,
		`{"kind":"message","from":"client","message":{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"q":"a` + esc + `"},"name":"t` + esc + `"}}}`,
		`{"kind":"message","from":"server","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"l` + esc + `","level":"info","logger":"g` + esc + `"}}}`,
		`{"kind":"message","from":"server","message":{"jsonrpc":"2.0","method":"notifications/n` + esc + `","params":{"x":"y` + esc + `"}}}`,
		`{"kind":"message","from":"server","message":{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"r` + esc + `","type":"text"}],"isError":true}}}`,
		`{"kind":"message","from":"client","message":{"id":"k` + esc + `","jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"q":"b"},"name":"t` + esc + `"}}}`,
		`{"kind":"message","from":"server","message":{"error":{"code":-32000,"message":"e` + esc + `"},"id":"k` + esc + `","jsonrpc":"2.0"}}`,
	}
	if extra != "" {
		lines = append(lines, extra)
	}
	lines = append(lines, `{"kind":"close","end":"eof","exit":{"code":3},"stderr":"panic: `+esc+`\nline two `+esc+`\n"}`, `{"kind":"end"}`)
	return corpusHeader + strings.Join(lines, "\n") + "\n"
}

// nested is a client notification line nesting depth levels, the line's
// own object included.
func nested(depth int) string {
	inner := depth - 3
	return `{"kind":"message","from":"client","message":{"jsonrpc":"2.0","method":"notifications/deep","params":{"a":` +
		strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}}}`
}

// idSession is hostileSession's first exchange with a tools/call of id
// call answered with id answer.
func idSession(call, answer string) string {
	return hostileSession(`{"kind":"message","from":"client","message":{"id":` + call + `,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}}` + "\n" +
		`{"kind":"message","from":"server","message":{"id":` + answer + `,"jsonrpc":"2.0","result":{"content":[]}}}`)
}

type corpusCase struct {
	name  string
	data  []byte
	loads bool // Load accepts it; else it is a *cassette.FormatError
}

func corpus() []corpusCase {
	many := func(n int) []byte {
		var b strings.Builder
		b.WriteString(hostileSession(""))
		body := strings.TrimSuffix(b.String(), `{"kind":"end"}`+"\n")
		b.Reset()
		b.WriteString(strings.Replace(body, `{"kind":"close"`, strings.Repeat(`{"kind":"message","from":"server","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+esc+`","level":"info"}}}`+"\n", n)+`{"kind":"close"`, 1))
		b.WriteString(`{"kind":"end"}` + "\n")
		return []byte(b.String())
	}
	http, err := os.ReadFile(filepath.Join("testdata", "http.jsonl"))
	if err != nil {
		panic(err)
	}
	hostileHTTP := strings.NewReplacer(`"session-1"`, `"session-1`+esc+`"`, `"Go-http-client/1.1"`, `"agent`+esc+`"`,
		`"s1_1"`, `"s1_1`+esc+`"`).Replace(string(http))
	return []corpusCase{
		{"control characters in every string", []byte(hostileSession("")), true},
		{"control characters in HTTP headers and event ids", []byte(hostileHTTP), true},
		{"invalid UTF-8 in strings", []byte(hostileSession(`{"kind":"message","from":"server","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"bad ` + "\xff\xfe\xc3" + `","level":"info"}}}`)), true},
		{"a BOM before the header (skipped, as an editor puts it)", append([]byte("\ufeff"), hostileSession("")...), true},
		{"a BOM inside the file", []byte(strings.Replace(hostileSession(""), "\n{", "\n\ufeff{", 1)), false},
		{"a NUL and ESC outside strings", []byte(hostileSession("\x00\x1b[2J")), false},
		{"depth MaxDepth", []byte(hostileSession(nested(cassette.MaxDepth))), true},
		{"depth MaxDepth+1", []byte(hostileSession(nested(cassette.MaxDepth + 1))), false},
		{"depth 1,048,576 in 2 MiB", []byte(hostileSession(`{"kind":"message","from":"client","message":` + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + `}`)), false},
		{"depth 6,000,000 in 11 MiB", []byte(hostileSession(`{"kind":"message","from":"client","message":` + strings.Repeat("[", 6e6) + strings.Repeat("]", 6e6) + `}`)), false},
		{"empty file", nil, false},
		{"header only", []byte(corpusHeader), false},
		{"no end line", []byte(strings.TrimSuffix(hostileSession(""), `{"kind":"end"}`+"\n")), false},
		{"20,000 lines", many(20000), true},
		{"MaxSize+1 bytes", append([]byte(hostileSession("")), bytes.Repeat([]byte(" "), cassette.MaxSize)...), false},
		{"id 4.5 answers 4", []byte(idSession("4", "4.5")), false},
		{"id 4.0 answers 4", []byte(idSession("4", "4.0")), true},
		{"id past int64", []byte(idSession("9223372036854775808", "9223372036854775808")), false},
		{"id 1e400", []byte(idSession("1e400", "1e400")), false},
		{"duplicate pending id", []byte(hostileSession(`{"kind":"message","from":"client","message":{"id":9,"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}}` + "\n" + `{"kind":"message","from":"client","message":{"id":9,"jsonrpc":"2.0","method":"tools/call","params":{"name":"y"}}}`)), false},
		{"null id answer", []byte(idSession("5", "null")), false},
		{"control characters in a kind", []byte(hostileSession(`{"kind":"k` + esc + `"}`)), false},
	}
}

// shownRaw returns the first character of s that a terminal would not show
// as it is (newlines and tabs aside), or -1.
func shownRaw(s string) rune {
	if !utf8.ValidString(s) {
		return utf8.RuneError
	}
	for _, r := range s {
		if safetext.Hidden(r) && r != '\n' && r != '\t' {
			return r
		}
	}
	return -1
}

// A corpusWay is one way a cassette comes in. It returns what it showed
// (output and error texts) and why it did not hold, "" when it did.
type corpusWay struct {
	name  string
	child bool // its work is in a child process: the heap counted here is not its
	run   func(ctx context.Context, t *testing.T, path string, c corpusCase) (shown []string, broke string)
}

// cleanCassette is a cassette with nothing hostile, to diff against.
var cleanCassette = filepath.Join("testdata", "docs.jsonl")

func corpusWays() []corpusWay {
	inProcess := func(args ...string) func(context.Context, *testing.T, string, corpusCase) ([]string, string) {
		return func(_ context.Context, _ *testing.T, path string, c corpusCase) ([]string, string) {
			full := make([]string, 0, len(args)+1)
			for _, a := range args {
				full = append(full, strings.ReplaceAll(a, "FILE", path))
			}
			code, stdout, stderr := runMcprig(full...)
			shown := []string{stdout, stderr}
			switch {
			case !c.loads && (code != 2 || !strings.Contains(stderr, "cassette ")):
				return shown, fmt.Sprintf("exit %d, stderr %.200q; want 2 and the format error", code, stderr)
			case c.loads && code == 2:
				return shown, fmt.Sprintf("exit 2, stderr %.200q", stderr)
			}
			return shown, ""
		}
	}
	return []corpusWay{
		{name: "Load", run: func(_ context.Context, _ *testing.T, path string, c corpusCase) ([]string, string) {
			_, err := cassette.Load(path)
			return []string{errText(err)}, formatErrorWanted(err, c)
		}},
		{name: "Open", run: openWay},
		{name: "inspect text", run: inProcess("inspect", "FILE")},
		{name: "inspect mermaid", run: inProcess("inspect", "--format", "mermaid", "FILE")},
		{name: "inspect html", run: inProcess("inspect", "--format", "html", "FILE")},
		{name: "diff", run: inProcess("diff", cleanCassette, "FILE")},
		{name: "verify", run: func(ctx context.Context, t *testing.T, path string, c corpusCase) ([]string, string) {
			return inProcess("verify", "--timeout", "5s", "--env", "GORACE="+noExitSleep, "FILE", "--", self(t), "fakeserver")(ctx, t, path, c)
		}},
		{name: "replay", child: true, run: replayWay},
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// formatErrorWanted says why err is not what c wants of Load or Open: nil
// for a cassette that loads, a *cassette.FormatError for one that does not.
func formatErrorWanted(err error, c corpusCase) string {
	var ferr *cassette.FormatError
	switch {
	case c.loads && err != nil:
		return fmt.Sprintf("%.200v, want it loaded", err)
	case !c.loads && !errors.As(err, &ferr):
		return fmt.Sprintf("%.200v, want a *cassette.FormatError", err)
	}
	return ""
}

// openWay replays the cassette in this process: a client connects, calls
// a tool the cassette does not hold and closes.
func openWay(ctx context.Context, _ *testing.T, path string, c corpusCase) ([]string, string) {
	f, err := cassette.Open(path, nil, nil)
	if err != nil || !c.loads {
		return []string{errText(err)}, formatErrorWanted(err, c)
	}
	shown := []string{}
	cl, err := client.Connect(ctx, client.Definition{Name: "hostile", Profile: client.Profile20251125, Transport: f}, nil)
	if err == nil {
		_, err = cl.CallTool(ctx, "not-recorded", map[string]any{"q": "x"})
		shown = append(shown, errText(err))
		err = cl.Close()
	}
	cerr := f.Close()
	shown = append(shown, errText(err), errText(cerr))
	var merr *cassette.MismatchError
	var uerr *cassette.UnusedError
	if cerr != nil && !errors.As(cerr, &merr) && !errors.As(cerr, &uerr) {
		return shown, fmt.Sprintf("Close = %.200v, want a mismatch or unused requests", cerr)
	}
	return shown, ""
}

// replayWay runs mcprig replay as a child and connects to it: a cassette
// that does not load ends it at start, saying why on its stderr.
func replayWay(ctx context.Context, t *testing.T, path string, c corpusCase) ([]string, string) {
	cl, err := client.Connect(ctx, client.Definition{Name: "hostile", Profile: client.Profile20251125, Transport: mcprig(t, nil, "replay", path)}, nil)
	errs := []error{err}
	if err == nil {
		_, cerr := cl.CallTool(ctx, "not-recorded", map[string]any{"q": "x"})
		errs = append(errs, cerr, cl.Close())
	}
	var shown []string
	for _, err := range errs {
		shown = append(shown, errText(err))
		var e *client.Error
		if errors.As(err, &e) && e.Diagnosis != nil {
			shown = append(shown, string(e.Diagnosis.Stderr)) // as mcprig wrote it
		}
	}
	if !c.loads && (err == nil || !strings.Contains(strings.Join(shown, "\n"), "cassette ")) {
		return shown, fmt.Sprintf("Connect = %.200v, want the child to end at start naming the cassette", err)
	}
	// A client that leaves at once: replay ends the session as recorded,
	// writing the recorded stderr tail.
	cmd := exec.CommandContext(ctx, self(t), "replay", path)
	cmd.Env = append(os.Environ(), "GORACE="+noExitSleep)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if c.loads && bytes.Contains(c.data, []byte(`"stderr":"panic: `)) && !strings.Contains(stderr.String(), "panic: ") {
		return shown, fmt.Sprintf("replay with no client wrote %.200q to stderr, want the recorded tail", stderr.String())
	}
	return append(shown, stdout.String(), stderr.String()), ""
}

// TestHostileCassetteCorpus runs each case of the corpus through each way
// in. Each run ends at its own deadline, shows no control character raw,
// ends as the case wants (loaded, or a typed error naming the cassette),
// and allocates at most a bounded multiple of the file's size. It logs the
// table of runs held.
func TestHostileCassetteCorpus(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	type row struct {
		cas, way  string
		held      bool
		allocated uint64
		peak      uint64 // the heap's growth at its highest, sampled each millisecond
		size      int
		took      time.Duration
	}
	var rows []row
	for _, c := range corpus() {
		// A subtest a case: each has its own deadline (testkit.Context).
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.NewReplacer(" ", "-", ",", "", "+", "plus", ".", "_").Replace(c.name)+".jsonl")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, w := range corpusWays() {
				r := row{cas: c.name, way: w.name, size: len(c.data)}
				broke := runCorpusWay(t, w, path, c, &r.allocated, &r.peak, &r.took)
				if limit := corpusHeapLimit(len(c.data)); broke == "" && !w.child && r.allocated > limit {
					broke = fmt.Sprintf("%d bytes allocated for a file of %d, want at most %d", r.allocated, len(c.data), limit)
				}
				if limit := corpusPeakLimit(len(c.data)); broke == "" && !w.child && r.peak > limit {
					broke = fmt.Sprintf("the heap grew by %d bytes at its peak for a file of %d, want at most %d", r.peak, len(c.data), limit)
				}
				if r.held = broke == ""; !r.held {
					t.Errorf("through %s: %s", w.name, broke)
				}
				rows = append(rows, r)
			}
		})
	}
	var b strings.Builder
	held := 0
	fmt.Fprintf(&b, "%-36s %-16s %-5s %12s %12s %12s %8s\n", "case", "way", "held", "file bytes", "allocated", "peak heap", "time")
	for _, r := range rows {
		if r.held {
			held++
		}
		fmt.Fprintf(&b, "%-36s %-16s %-5v %12d %12d %12d %8s\n", r.cas, r.way, r.held, r.size, r.allocated, r.peak, r.took.Round(time.Millisecond))
	}
	t.Logf("hostile cassette corpus: %d of %d runs held\n%s", held, len(rows), b.String())
}

// corpusHeapLimit is what one way may allocate for a file of n bytes: a
// multiple of the file, and a floor for the fixed costs (a client, a
// child's pipes, the fake's catalog).
func corpusHeapLimit(n int) uint64 { return 40*uint64(n) + 64<<20 }

// corpusPeakLimit is how far the heap may grow at its peak in one way for a
// file of n bytes (a way run in a child process is not counted here).
func corpusPeakLimit(n int) uint64 { return 16*uint64(n) + 32<<20 }

// corpusDeadline bounds one way through one case, within the case's own
// deadline (testkit.Context).
const corpusDeadline = 30 * time.Second

// runCorpusWay runs w on path within corpusDeadline, counting the bytes
// it allocates and the heap's growth at its peak, and says why it did not
// hold.
func runCorpusWay(t *testing.T, w corpusWay, path string, c corpusCase, allocated, peak *uint64, took *time.Duration) string {
	ctx, cancel := context.WithTimeout(testkit.Context(t), corpusDeadline)
	defer cancel()
	type result struct {
		shown []string
		broke string
	}
	done := make(chan result, 1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peakc := heapPeak(stop)
	start := time.Now()
	go func() {
		shown, broke := w.run(ctx, t, path, c)
		done <- result{shown, broke}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		close(stop)
		return fmt.Sprintf("did not end by its deadline (%v)", context.Cause(ctx))
	}
	close(stop)
	if p := <-peakc; p > before.HeapAlloc {
		*peak = p - before.HeapAlloc
	}
	*took = time.Since(start)
	runtime.ReadMemStats(&after)
	*allocated = after.TotalAlloc - before.TotalAlloc
	if res.broke != "" {
		return res.broke
	}
	for _, s := range res.shown {
		if r := shownRaw(s); r >= 0 {
			i := strings.IndexRune(s, r)
			return fmt.Sprintf("%U shown raw: %q", r, s[max(0, i-60):min(len(s), i+60)])
		}
	}
	return ""
}

// TestHTMLMessagesAtTheEdge: a page shows htmlMessages messages; a
// cassette with one more shows as many and says so on the page.
func TestHTMLMessagesAtTheEdge(t *testing.T) {
	leakcheck.Check(t)
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, []byte(hostileSession("")), 0o644); err != nil {
		t.Fatal(err)
	}
	const messages = 11 // in hostileSession
	saved := htmlMessages
	t.Cleanup(func() { htmlMessages = saved })
	for _, bound := range []int{messages, messages - 1} {
		htmlMessages = bound
		code, page, stderr := runMcprig("inspect", "--format", "html", path)
		if code != 0 {
			t.Fatalf("inspect --format html: exit %d\n%s", code, stderr)
		}
		shown := strings.Count(page, `<details class="msg `)
		said := strings.Contains(page, fmt.Sprintf("This page shows the first %d of the %d messages", bound, messages))
		if want := min(bound, messages); shown != want || said != (bound < messages) {
			t.Errorf("bound %d, %d messages: %d shown, the cut said %v; want %d shown, said %v", bound, messages, shown, said, want, bound < messages)
		}
	}
}
