package cassette_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/transport/inprocess"
)

func load(t *testing.T, path string) *cassette.Cassette {
	t.Helper()
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// edit returns a copy of c with old replaced by new in every message (once
// at least), re-parsed.
func editCassette(t *testing.T, c *cassette.Cassette, old, new string) *cassette.Cassette {
	t.Helper()
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", c.File, old)
	}
	e, err := cassette.Parse(c.File+" (edited)", []byte(strings.ReplaceAll(string(data), old, new)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCompareAcrossTransports: an in-process, a stdio and an HTTP recording
// of the same session (stateful and stateless) do not drift from one
// another, and the same edit drifts the same way in each.
func TestCompareAcrossTransports(t *testing.T) {
	leakcheck.Check(t)
	paths := map[string]string{"inprocess": tempPath(t, "inprocess.jsonl"), "stdio": tempPath(t, "stdio.jsonl"),
		"http": tempPath(t, "http.jsonl"), "stateless": tempPath(t, "stateless.jsonl")}
	record(t, paths["inprocess"], inprocess.New(newCounter().srv), nil, rev2025, script[0], script[2])
	record(t, paths["stdio"], stdioCounter(t, nil), nil, rev2025, script[0], script[2])
	record(t, paths["http"], httpLive(t, newHTTPServer(t, statefulCounter(), false, nil).url(), nil), nil, rev2025, script[0], script[2])
	record(t, paths["stateless"], httpLive(t, newHTTPServer(t, newCounter(), true, nil).url(), nil), nil, rev2025, script[0], script[2])
	base := load(t, paths["inprocess"])
	var want []string
	for _, name := range []string{"inprocess", "stdio", "http", "stateless"} {
		c := load(t, paths[name])
		ds, err := cassette.Compare(base, c, nil)
		if err != nil || len(ds) != 0 {
			t.Errorf("Compare(inprocess, %s) = %+v, %v; want no drift", name, ds, err)
		}
		ds, err = cassette.Compare(c, editCassette(t, editCassette(t, c, `"first #1"`, `"first #9"`), `"version":"v1.0.0"`, `"version":"v2"`), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range ds {
			got = append(got, d.Kind+" "+d.Subject+": "+d.Reason+"\n"+d.Diff)
		}
		if want == nil {
			want = got
			if len(want) != 2 || !strings.HasPrefix(want[0], `session server version: "v1.0.0" -> "v2"`) || !strings.HasPrefix(want[1], `result tools/call count {"label":"first"}: answered differently`) {
				t.Fatalf("drifts of the edited %s cassette:\n%s", name, strings.Join(got, "\n"))
			}
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the edited %s cassette drifts otherwise than the in-process one:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestCompareIgnores: ids, placeholders' numbers and IgnorePaths do not
// drift; a bad option is an *OptionsError.
func TestCompareIgnores(t *testing.T) {
	path := tempPath(t, "ids.jsonl")
	recordCounter(t, path, script[0])
	c := load(t, path)
	renumbered := editCassette(t, c, `"id":2,`, `"id":"two",`)
	if ds, err := cassette.Compare(c, renumbered, nil); err != nil || len(ds) != 0 {
		t.Errorf("Compare with other ids = %+v, %v; want no drift", ds, err)
	}
	changed := editCassette(t, c, `"first #1"`, `"first #2"`)
	if ds, _ := cassette.Compare(c, changed, &cassette.Options{IgnorePaths: []string{"result.content"}}); len(ds) != 0 {
		t.Errorf("Compare ignoring result.content = %+v, want no drift", ds)
	}
	_, err := cassette.Compare(c, c, &cassette.Options{IgnorePaths: []string{"a..b"}})
	var oerr *cassette.OptionsError
	if !errors.As(err, &oerr) || oerr.Func != "Compare" {
		t.Errorf("Compare with a bad path = %v, want an *OptionsError of Compare", err)
	}
}
