package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"
)

// dropCassette is the docs session over HTTP, its lookup's stream dropped
// by the fake before the answer and resumed by the client: what a picture
// of a session has the most to show of.
var dropCassette = filepath.Join("testdata", "drop-resume.jsonl")

// pictured are the cassettes whose pictures are golden: a dropped and
// resumed stream, a 2026-07-28 session, a session whose server asks the
// client things during a call, a real server's session.
var pictured = []string{
	dropCassette,
	continuationCassette,
	sessionKind{"stateless", "2026-07-28"}.path(),
	filepath.Join("..", "..", "cassette", "testdata", "counter.jsonl"),
	everythingCassette,
	taskCassette,
}

// taskCassette is a 2026-07-28 session whose tool ran as a task (the
// tasks extension), polled 31 times: 30 polls answered working, then the
// result.
var taskCassette = filepath.Join("testdata", "task-2026.jsonl")

// continuationCassette is a 2026-07-28 session of the rich fake whose
// elicit tool answers input required, the client continuing the call.
var continuationCassette = filepath.Join("testdata", "continuation-2026.jsonl")

// TestContinuationCassette records continuationCassette (-update rewrites
// it; re-recording gives the same bytes).
func TestContinuationCassette(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogRich})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	path := filepath.Join(t.TempDir(), "continuation.jsonl")
	f, err := cassette.Open(path, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "rich", Profile: client.Profile20260728, Transport: f}, &client.Handlers{
		Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "elicit", map[string]any{"question": "proceed?"}); err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	if !bytes.Contains(data, []byte(`"resultType":"input_required"`)) || !bytes.Contains(data, []byte(`"requestState"`)) {
		t.Fatalf("the recording has no continuation:\n%s", data)
	}
	golden(t, "continuation-2026.jsonl", data)
}

// TestDropCassette records the docs session over HTTP with the fake
// dropping the lookup's stream, as dropCassette holds it (-update rewrites
// it; re-recording gives the same bytes).
func TestDropCassette(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: "docs", Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDrop, Tool: "lookup"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	live, err := streamablehttp.New(startDocsHTTP(t, fake, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "drop.jsonl")
	f, err := cassette.Open(path, live, &cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: client.Profile20251125, Transport: f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	driveDocs(t, c)
	closeClient(t, c)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"end":"dropped"`)) || !bytes.Contains(data, []byte(`"Last-Event-Id"`)) && !bytes.Contains(data, []byte(`"Last-Event-ID"`)) {
		t.Fatalf("the recording has no drop and resume:\n%s", data)
	}
	golden(t, "drop-resume.jsonl", data)
}

// mermaidLine is every statement writeMermaid writes.
var mermaidLine = regexp.MustCompile(`^(sequenceDiagram|    autonumber|    autonumber [1-9][0-9]*|    participant [CS] as ` + mermaidTextRE + `|    (C|S)(->>|-->>|-\))(C|S): ` + mermaidTextRE + `|    Note (over C,S|left of C|right of S): ` + mermaidTextRE + `)$`)

// mermaidTextRE is text with no character Mermaid reads as syntax, but
// as entity codes.
const mermaidTextRE = `([^;#<>%\n]|#[0-9]+;)+`

// TestInspectMermaid: the diagram has one numbered arrow per message (its
// number the message's, as faults count them), notes for drops, resumes
// and the ending, only statements Mermaid reads and text it shows as it
// is (golden).
func TestInspectMermaid(t *testing.T) {
	var sections []txtar.File
	for _, path := range pictured {
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runMcprig("inspect", "--format", "mermaid", path)
		if code != 0 {
			t.Fatalf("inspect --format mermaid %s: exit %d: %s", path, code, stderr)
		}
		// Every message is an arrow numbered as the message, but a task's
		// repeated polls: a note counts them, and the next arrow is
		// numbered after them (autonumber N).
		next, folded := 1, 0
		for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			if !mermaidLine.MatchString(l) {
				t.Errorf("%s: a line Mermaid may not read as meant: %q", path, l)
			}
			if strings.Contains(l, "->>") || strings.Contains(l, "-)") {
				next++
			}
			if n, ok := strings.CutPrefix(l, "    autonumber "); ok {
				to, _ := strconv.Atoi(n)
				if to <= next {
					t.Errorf("%s: autonumber %d after arrow %d", path, to, next-1)
				}
				folded += to - next
				next = to
			}
		}
		if n := len(c.Messages()); next-1 != n {
			t.Errorf("%s: the last arrow is numbered %d; %d messages", path, next-1, n)
		}
		if path != taskCassette && folded != 0 {
			t.Errorf("%s: %d messages folded in a session without tasks", path, folded)
		}
		sections = append(sections, txtar.File{Name: filepath.Base(path), Data: []byte(stdout)})
	}
	drop := string(sections[0].Data)
	for _, want := range []string{"Note over C,S: stream ", " dropped", "resumes after event", "Note over C,S: session closed by the client", `C->>S: tools/call lookup {"query":"close"}`} {
		if !strings.Contains(drop, want) {
			t.Errorf("the drop's diagram lacks %q:\n%s", want, drop)
		}
	}
	if counter := string(sections[3].Data); !strings.Contains(counter, "S->>C: (server asks) sampling/createMessage") || !strings.Contains(counter, "C-->>S: ") {
		t.Errorf("the server's requests are not drawn:\n%s", counter)
	}
	if cont := string(sections[1].Data); !strings.Contains(cont, "S-->>C: input required: ") || !strings.Contains(cont, "(continuation, state ") {
		t.Errorf("the continuation is not drawn:\n%s", cont)
	}
	if s26 := string(sections[2].Data); !strings.Contains(s26, "S-)C: notifications/subscriptions/acknowledged") {
		t.Errorf("the 2026-07-28 notification is not drawn:\n%s", s26)
	}
	task := string(sections[len(sections)-1].Data)
	for _, want := range []string{"S-->>C: task ", ": working\n", "Note over C,S: 29 more polls of task ", " answered working (#35;17–#35;74)\n    autonumber 75\n", `: completed, "docs: slow"`} {
		if !strings.Contains(task, want) {
			t.Errorf("the task's diagram lacks %q:\n%s", want, task)
		}
	}
	goldenTxtar(t, "inspect-mermaid.txtar", "mcprig inspect --format mermaid of the cassettes TestInspectMermaid pictures.\ngo test -run TestInspectMermaid -update rewrites it.\n", sections)
}

// externalRef matches what would make a page load something: an address
// in an attribute, an import, a url() in style.
var externalRef = regexp.MustCompile(`(?i)(src|href|action|srcset)\s*=|@import|url\(`)

// TestInspectHTML: the page is self-contained (nothing in it loads from
// anywhere, and its Content-Security-Policy forbids it), holds one
// expandable entry per message, numbered, with the message indented, and
// escapes what the messages say.
func TestInspectHTML(t *testing.T) {
	hostile := editFile(t, dropCassette, "hostile.jsonl", `"text":"docs: close"`, `"text":"\u003c/pre\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"`)
	for _, path := range append(pictured, hostile) {
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "page.html")
		if code, _, stderr := runMcprig("inspect", "--format", "html", "-o", out, path); code != 0 {
			t.Fatalf("inspect --format html %s: exit %d: %s", path, code, stderr)
		}
		page := string(readFile(t, out))
		if m := externalRef.FindString(page); m != "" {
			t.Errorf("%s: the page may load something: %q", path, m)
		}
		if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`) {
			t.Errorf("%s: no Content-Security-Policy", path)
		}
		if n := strings.Count(page, "<script>"); n != 1 {
			t.Errorf("%s: %d scripts, want the page's own", path, n)
		}
		ms := c.Messages()
		if n := strings.Count(page, `<details class="msg `); n != len(ms) {
			t.Errorf("%s: %d entries for %d messages", path, n, len(ms))
		}
		for _, m := range ms {
			if !strings.Contains(page, `id="m`+strconv.Itoa(m.Number)+`" data-line="`+strconv.Itoa(m.Line)+`"`) {
				t.Errorf("%s: no entry for message %d at line %d", path, m.Number, m.Line)
			}
		}
	}
	task := string(runOK(t, "inspect", "--format", "html", taskCassette))
	if n := strings.Count(task, `<details class="polls"`); n != 1 || !strings.Contains(task, `<summary>29 more polls of task 9hw8Yt2Z5jKi_a3FBaiVzg answered working (#17–#74)</summary>`) {
		t.Errorf("the task's repeated polls are not one group (%d groups)", n)
	}
	page := string(runOK(t, "inspect", "--format", "html", hostile))
	if !strings.Contains(page, "&lt;/pre&gt;&lt;script&gt;alert(1)") {
		t.Errorf("the message's markup is not escaped")
	}
}

func runOK(t *testing.T, args ...string) []byte {
	t.Helper()
	code, stdout, stderr := runMcprig(args...)
	if code != 0 {
		t.Fatalf("mcprig %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return []byte(stdout)
}

// chromium returns Debian's headless browser, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install -y chromium; .ci/run installs it)")
	return ""
}

// headless runs Chromium headless on url with args, offline, in a fresh
// profile, and returns its stdout.
func headless(t *testing.T, browser, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000"}, args...)
	cmd := exec.CommandContext(ctx, browser, append(all, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// TestInspectHTMLInChromium opens the page of the dropped and resumed
// session in headless Chromium, offline: its script ran (every entry
// counted, the message the address names opened) and a screenshot shows
// the timeline; -update commits it as testdata/inspect-html.png.
func TestInspectHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "drop.html")
	runOK(t, "inspect", "--format", "html", "-o", page, dropCassette)
	c, err := cassette.Load(dropCassette)
	if err != nil {
		t.Fatal(err)
	}
	answer := 0
	for _, m := range c.Messages() {
		if bytes.Contains(m.Message, []byte(`"docs: close"`)) {
			answer = m.Number
		}
	}
	url := "file://" + page + "#m" + strconv.Itoa(answer)
	dom := string(headless(t, browser, url, "--dump-dom"))
	if !strings.Contains(dom, `data-messages="`+strconv.Itoa(len(c.Messages()))+`"`) {
		t.Errorf("the page's script did not run (no data-messages):\n%.2000s", dom)
	}
	if !regexp.MustCompile(`<details class="msg server answer" id="m` + strconv.Itoa(answer) + `" data-line="\d+" open="">`).MatchString(dom) {
		t.Errorf("the message #%d the address names is not open", answer)
	}
	// A message among a task's folded polls opens, and its group with it.
	taskPage := filepath.Join(dir, "task.html")
	runOK(t, "inspect", "--format", "html", "-o", taskPage, taskCassette)
	dom = string(headless(t, browser, "file://"+taskPage+"#m40", "--dump-dom"))
	if !strings.Contains(dom, `<details class="polls" data-line="30" open="">`) || !regexp.MustCompile(`<details class="msg server answer" id="m40" data-line="\d+" open="">`).MatchString(dom) {
		t.Errorf("#m40, a folded poll's answer, is not open in its open group:\n%.3000s", dom)
	}
	shot := filepath.Join(dir, "shot.png")
	headless(t, browser, url, "--window-size=1100,1400", "--screenshot="+shot)
	data := readFile(t, shot)
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1100 || b.Dy() != 1400 {
		t.Errorf("screenshot is %v, want 1100x1400", b)
	}
	// The timeline's colours are there: the client's blue and the server's
	// green bars.
	blue, green := 0, 0
	for y := 0; y < img.Bounds().Dy(); y += 2 {
		for x := 0; x < img.Bounds().Dx(); x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			switch r, g, b = r>>8, g>>8, b>>8; {
			case r < 0x50 && g > 0x60 && g < 0x80 && b > 0xd0:
				blue++
			case r < 0x30 && g > 0x90 && g < 0xb0 && b > 0x60 && b < 0x80:
				green++
			}
		}
	}
	if blue < 50 || green < 50 {
		t.Errorf("the screenshot shows no timeline (%d client and %d server pixels)", blue, green)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("testdata", "inspect-html.png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRealPeerMermaidRenders renders each pictured diagram with mermaid,
// the renderer GitHub uses (installed by scripts/real-peers), in headless
// Chromium: every one parses, and draws an arrow per message with its
// number.
func TestRealPeerMermaidRenders(t *testing.T) {
	js := realPeerFile(t, "MCPRIG_MERMAID_JS")
	browser := chromium(t)
	dir := t.TempDir()
	bundle, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mermaid.min.js"), bundle, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range pictured {
		c, err := cassette.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		diagram := runOK(t, "inspect", "--format", "mermaid", path)
		page := filepath.Join(dir, filepath.Base(path)+".html")
		html := `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="mermaid.min.js"></script></head><body>
<pre class="mermaid">` + htmlEscape(string(diagram)) + `</pre>
<script>
mermaid.initialize({startOnLoad: false});
mermaid.run().then(function () { document.body.setAttribute("data-rendered", "yes"); },
  function (e) { document.body.setAttribute("data-error", String(e && e.message || e)); });
</script></body></html>`
		if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := string(headless(t, browser, "file://"+page, "--dump-dom"))
		if !strings.Contains(dom, `data-rendered="yes"`) {
			t.Errorf("%s: mermaid did not render the diagram:\n%.3000s", path, dom)
			continue
		}
		arrows := strings.Count(dom, `class="messageLine0"`) + strings.Count(dom, `class="messageLine1"`)
		if n := strings.Count(string(diagram), "->>") + strings.Count(string(diagram), "-)"); arrows != n {
			t.Errorf("%s: mermaid drew %d arrows for the diagram's %d", path, arrows, n)
		}
		// The last arrow is numbered as the last message, folded polls
		// before it or not.
		if n := len(c.Messages()); !strings.Contains(dom, `class="sequenceNumber">`+strconv.Itoa(n)+`</text>`) {
			t.Errorf("%s: no arrow numbered %d, the last message", path, n)
		}
	}
}

// realPeerFile returns the file the environment variable name names, set
// by scripts/real-peers, or skips.
func realPeerFile(t *testing.T, name string) string {
	t.Helper()
	path := os.Getenv(name)
	if path == "" {
		t.Skipf("%s not set: run under scripts/real-peers (it installs mermaid with npm)", name)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v: run scripts/real-peers again", name, err)
	}
	return path
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
