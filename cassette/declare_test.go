package cassette_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// volatileLabel declares the count tool's label volatile, as a timestamp
// argument would be.
var volatileLabel = &cassette.Options{IgnorePaths: []string{"params.arguments.label", "params.arguments.label"}}

// TestVolatileDeclaredInHeader: the paths a recording ignores are written
// into its header, once each; a recording without them writes no field.
func TestVolatileDeclaredInHeader(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "volatile.jsonl")
	data, _ := record(t, path, inprocess.New(newCounter().srv), volatileLabel, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:00"}})
	header, _, _ := bytes.Cut(data, []byte("\n"))
	want := `{"format":"mcprig-cassette","version":2,"transport":"inprocess","protocol":"2025-11-25","server":"counter","volatile":["params.arguments.label"]}`
	if diff := cmp.Diff(want, string(header)); diff != "" {
		t.Errorf("header mismatch (-want +got):\n%s", diff)
	}
	plain := tempPath(t, "plain.jsonl")
	data, _ = record(t, plain, inprocess.New(newCounter().srv), nil, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:00"}})
	if bytes.Contains(data, []byte(`"volatile"`)) || bytes.Contains(data, []byte(`"redaction"`)) {
		t.Errorf("a recording without declarations writes them:\n%s", data)
	}
}

// TestVolatileHonouredByReplay: a replay with no options ignores what the
// cassette declares volatile; what it does not declare still mismatches.
func TestVolatileHonouredByReplay(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "volatile.jsonl")
	record(t, path, inprocess.New(newCounter().srv), volatileLabel, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:00"}})
	got := replay(t, path, nil, nil, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:01"}})
	if diff := cmp.Diff([]outcome{{Text: "12:00 #1"}}, got); diff != "" {
		t.Errorf("replay with another label mismatch (-want +got):\n%s", diff)
	}

	// Negative: the same change, undeclared, is a mismatch.
	plain := tempPath(t, "plain.jsonl")
	record(t, plain, inprocess.New(newCounter().srv), nil, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:00"}})
	f := open(t, plain, nil, withMode(nil, cassette.ModeReplay))
	outs, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "12:01"}})
	mustContain(t, "undeclared change", outs[0].Err, "tools/call", `"12:01"`)
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Errorf("Close = %v, want a *MismatchError", err)
	}
}

// TestVolatileDoesNotHideOtherPaths: declaring one argument volatile leaves
// the others matched.
func TestVolatileDoesNotHideOtherPaths(t *testing.T) {
	leakcheck.Check(t)
	path := tempPath(t, "volatile.jsonl")
	opts := &cassette.Options{IgnorePaths: []string{"params.arguments.now"}}
	record(t, path, inprocess.New(newCounter().srv), opts, rev2025, call{Tool: "count", Args: map[string]any{"label": "a"}})
	f := open(t, path, nil, withMode(nil, cassette.ModeReplay))
	outs, _ := session(t, f, rev2025, call{Tool: "count", Args: map[string]any{"label": "b"}})
	mustContain(t, "changed label", outs[0].Err, "tools/call", `"b"`)
	var merr *cassette.MismatchError
	if err := f.Close(); !errors.As(err, &merr) {
		t.Errorf("Close = %v, want a *MismatchError", err)
	}
}

// TestVolatileHonouredByCompare: Compare ignores what either cassette
// declares volatile, with no options; undeclared, the change drifts.
func TestVolatileHonouredByCompare(t *testing.T) {
	leakcheck.Check(t)
	rec := func(name string, opts *cassette.Options, label string) *cassette.Cassette {
		path := tempPath(t, name)
		record(t, path, inprocess.New(newCounter().srv), opts, rev2025, call{Tool: "count", Args: map[string]any{"label": label}})
		return load(t, path)
	}
	volatile := &cassette.Options{IgnorePaths: []string{"params.arguments.label", "result.content"}}
	for _, tc := range []struct {
		name       string
		old, new   *cassette.Options
		wantDrifts int
	}{
		{"both declare", volatile, volatile, 0},
		{"old declares", volatile, nil, 0},
		{"new declares", nil, volatile, 0},
		{"neither declares", nil, nil, 2}, // the call made in one only, and in the other only
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := cassette.Compare(rec("old.jsonl", tc.old, "12:00"), rec("new.jsonl", tc.new, "12:01"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != tc.wantDrifts {
				t.Errorf("Compare = %d drifts %+v, want %d", len(ds), ds, tc.wantDrifts)
			}
		})
	}
}

// TestVolatileHonouredByVerify: Verify ignores what the cassette declares
// volatile, with no options; undeclared, the change drifts.
func TestVolatileHonouredByVerify(t *testing.T) {
	leakcheck.Check(t)
	later := func() *counter { // its count has moved on: "x #6"
		c := newCounter()
		c.calls.Add(5)
		return c
	}
	path := tempPath(t, "volatile.jsonl")
	record(t, path, inprocess.New(newCounter().srv), &cassette.Options{IgnorePaths: []string{"result.content.*.text"}}, rev2025, script[0])
	if err := verify(t, path, inprocess.New(later().srv), nil); err != nil {
		t.Errorf("Verify of a declared volatile result: %v", err)
	}
	plain := tempPath(t, "plain.jsonl")
	record(t, plain, inprocess.New(newCounter().srv), nil, rev2025, script[0])
	var derr *cassette.DriftError
	if err := verify(t, plain, inprocess.New(later().srv), nil); !errors.As(err, &derr) || len(derr.Drifts) != 1 {
		t.Errorf("Verify of an undeclared change = %v, want one drift", err)
	}
}

// TestTraceContextVolatile: a session whose requests carry W3C trace
// context in "_meta" replays with other trace ids.
func TestTraceContextVolatile(t *testing.T) {
	leakcheck.Check(t)
	traced := func(f interface {
		Transport() (mcp.Transport, error)
	}, traceID string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr, err := f.Transport()
		if err != nil {
			return "", err
		}
		cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev2025})
		if err != nil {
			return "", err
		}
		defer cs.Close()
		p := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"label": "t"}}
		p.SetMeta(map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01", "tracestate": "x=" + traceID[:4]})
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	path := tempPath(t, "traced.jsonl")
	rf := open(t, path, inprocess.New(newCounter().srv), withMode(nil, cassette.ModeRecord))
	if _, err := traced(rf, "4bf92f3577b34da6a3ce929d0e0e4736"); err != nil {
		t.Fatal(err)
	}
	if err := rf.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	// The trace and span ids are renamed, so re-recordings give the same bytes.
	mustContain(t, "recording", string(data), `"traceparent":"00-00000000000000000000000000000001-0000000000000001-01"`)
	if bytes.Contains(data, []byte("4bf92f3577b34da6a3ce929d0e0e4736")) {
		t.Errorf("the recording holds the live trace id:\n%s", data)
	}
	pf := open(t, path, nil, withMode(nil, cassette.ModeReplay))
	got, err := traced(pf, "0af7651916cd43dd8448eb211c80319c")
	if err != nil || got != "t #1" {
		t.Errorf("traced replay = %q, %v; want the recorded answer", got, err)
	}
	if err := pf.Close(); err != nil {
		t.Errorf("replaying Close: %v", err)
	}
}

// TestRedactionNamedInHeader: a recording with redaction rules names their
// digest, never a secret; the digest ignores order and repetition.
func TestRedactionNamedInHeader(t *testing.T) {
	leakcheck.Check(t)
	const secret = "sk-live-0123456789"
	opts := &cassette.Options{Secrets: []string{secret}, RedactPaths: []string{"params.arguments.password"},
		Patterns: []*regexp.Regexp{regexp.MustCompile(`key-[0-9]+`)}, NotSecret: []string{"debug"}}
	path := tempPath(t, "redacted.jsonl")
	data, _ := record(t, path, inprocess.New(newCounter().srv), opts, rev2025,
		call{Tool: "echo", Args: map[string]any{"text": secret, "password": "hunter2-hunter2"}})
	header, _, _ := bytes.Cut(data, []byte("\n"))
	want := fmt.Sprintf(`"server":"counter","redaction":%q}`, opts.RedactionDigest())
	mustContain(t, "header", string(header), want)
	for _, s := range []string{secret, "hunter2", "key-[0-9]", "params.arguments.password"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("cassette holds %q:\n%s", s, data)
		}
	}
	same := &cassette.Options{RedactPaths: []string{"params.arguments.password", "params.arguments.password"},
		Patterns: []*regexp.Regexp{regexp.MustCompile(`key-[0-9]+`)}}
	if a, b := opts.RedactionDigest(), same.RedactionDigest(); a != b {
		t.Errorf("digests of the same rules differ: %s, %s (secrets and repetition count)", a, b)
	}
	if d := (&cassette.Options{Secrets: []string{secret}}).RedactionDigest(); d != "" {
		t.Errorf("digest of secrets only = %q, want none", d)
	}
}

// TestRedactionChangedRefused: replaying or verifying with other rules, or
// none, is a *RedactionError; the same rules replay.
func TestRedactionChangedRefused(t *testing.T) {
	leakcheck.Check(t)
	opts := &cassette.Options{RedactPaths: []string{"params.arguments.password"}}
	path := tempPath(t, "redacted.jsonl")
	args := map[string]any{"text": "hi", "password": "hunter2-hunter2"}
	record(t, path, inprocess.New(newCounter().srv), opts, rev2025, call{Tool: "echo", Args: args})

	other := &cassette.Options{RedactPaths: []string{"params.arguments.password"}, Patterns: []*regexp.Regexp{regexp.MustCompile(`tok-\w+`)}}
	want := &cassette.RedactionError{Cassette: path, Recorded: opts.RedactionDigest(), Configured: other.RedactionDigest()}
	_, err := cassette.Open(path, nil, withMode(other, cassette.ModeReplay))
	var rerr *cassette.RedactionError
	if !errors.As(err, &rerr) {
		t.Fatalf("Open with other rules = %v, want a *RedactionError", err)
	}
	if diff := cmp.Diff(want, rerr); diff != "" {
		t.Errorf("RedactionError mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, "error", err.Error(), path, "use the rules it was recorded with, or record it again")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cassette.Verify(ctx, load(t, path), inprocess.New(newCounter().srv), other); !errors.As(err, &rerr) {
		t.Errorf("Verify with other rules = %v, want a *RedactionError", err)
	}

	got := replay(t, path, nil, opts, rev2025, call{Tool: "echo", Args: args})
	if diff := cmp.Diff([]outcome{{Text: "echo: hi"}}, got); diff != "" {
		t.Errorf("replay with the same rules mismatch (-want +got):\n%s", diff)
	}
	// Options with no rules are other rules too.
	_, err = cassette.Open(path, nil, withMode(nil, cassette.ModeReplay))
	want = &cassette.RedactionError{Cassette: path, Recorded: opts.RedactionDigest()}
	if !errors.As(err, &rerr) {
		t.Fatalf("Open with no rules = %v, want a *RedactionError", err)
	}
	if diff := cmp.Diff(want, rerr); diff != "" {
		t.Errorf("RedactionError mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, "error", err.Error(), "replayed with none")
}

// TestHeaderDeclarations: the header's declarations round-trip, and
// malformed ones are refused on line 1; the path count is bounded at 256.
func TestHeaderDeclarations(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0a", 32)
	head := func(extra string) string {
		return `{"format":"mcprig-cassette","version":2,"transport":"stdio","protocol":"2025-11-25","server":"s"` + extra + "}\n" +
			`{"kind":"close","end":"client"}` + "\n" + `{"kind":"end"}` + "\n"
	}
	paths := func(n int) string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf(`"params.arguments.a%d"`, i)
		}
		return `,"volatile":[` + strings.Join(ps, ",") + `]`
	}
	good := head(`,"volatile":["params.arguments.now","result.content.*.text"],"redaction":"` + digest + `"`)
	c, err := cassette.Parse("good", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"params.arguments.now", "result.content.*.text"}, c.Header.Volatile); diff != "" {
		t.Errorf("Volatile mismatch (-want +got):\n%s", diff)
	}
	if out, err := c.Marshal(); err != nil || string(out) != good {
		t.Errorf("Marshal = %s, %v; want the bytes parsed", out, err)
	}
	if _, err := cassette.Parse("edge", []byte(head(paths(256)))); err != nil {
		t.Errorf("256 volatile paths: %v", err)
	}
	for name, extra := range map[string]string{
		"257 volatile paths": paths(257),
		"empty segment":      `,"volatile":["params..now"]`,
		"digest not sha256":  `,"redaction":"md5:00"`,
		"digest too short":   `,"redaction":"sha256:0a"`,
		"digest upper case":  `,"redaction":"` + strings.ToUpper(digest) + `"`,
		"volatile not list":  `,"volatile":"params"`,
	} {
		_, err := cassette.Parse(name, []byte(head(extra)))
		var ferr *cassette.FormatError
		if !errors.As(err, &ferr) || ferr.Line != 1 {
			t.Errorf("%s: Parse = %v, want a *FormatError on line 1", name, err)
		}
	}
	// A cassette built in code is checked alike before it replays.
	c.Header.Volatile = []string{"a..b"}
	var ferr *cassette.FormatError
	if _, err := cassette.Replay(c, nil, nil); !errors.As(err, &ferr) || ferr.Line != 1 {
		t.Errorf("Replay of a built cassette with a bad path = %v, want a *FormatError on line 1", err)
	}
}

// TestIgnorePathsBound: Options take at most 256 ignored paths, the most a
// header declares, so that every recording loads again.
func TestIgnorePathsBound(t *testing.T) {
	paths := func(n int) []string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf("params.arguments.a%d", i)
		}
		return ps
	}
	if err := (&cassette.Options{IgnorePaths: paths(256)}).Validate(); err != nil {
		t.Errorf("256 paths: %v", err)
	}
	err := (&cassette.Options{IgnorePaths: paths(257)}).Validate()
	var oerr *cassette.OptionsError
	if !errors.As(err, &oerr) || oerr.Option != "IgnorePaths" || !errors.Is(err, cassette.ErrInvalidOptions) || !strings.Contains(err.Error(), "too many paths") {
		t.Errorf("257 paths: Validate = %v, want an *OptionsError on IgnorePaths: too many paths", err)
	}
}

// TestTestdataCassettesUnchanged: every cassette under the module's
// testdata directories loads, replays (its player builds) and marshals to
// its own bytes: the declarations changed no file and need no upgrade.
func TestTestdataCassettesUnchanged(t *testing.T) {
	leakcheck.Check(t)
	var paths []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".jsonl") && strings.Contains(filepath.ToSlash(path), "/testdata/") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("found %d cassettes under testdata, want at least 10", len(paths))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cassette.Parse(path, data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if c.Header.Volatile != nil || c.Header.Redaction != "" {
			t.Errorf("%s declares %v %q; no committed cassette does", path, c.Header.Volatile, c.Header.Redaction)
		}
		if r, err := cassette.Replay(c, nil, nil); err != nil {
			t.Errorf("%s: Replay: %v", path, err)
		} else {
			r.Close()
		}
		if bytes.HasPrefix(data, []byte(`{"format":"mcprig-cassette","version":2,`)) {
			if out, err := c.Marshal(); err != nil || !bytes.Equal(out, data) {
				t.Errorf("%s: Marshal gives other bytes (%v)", path, err)
			}
		}
	}
	t.Logf("%d cassettes under testdata load, replay and marshal unchanged", len(paths))
}
