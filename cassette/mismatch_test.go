package cassette_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weather is a fake whose get_weather names its city.
var weather = &fakeserver.Catalog{Name: "weather", Tools: []fakeserver.Tool{{
	Name:        "get_weather",
	InputSchema: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
	Reply: func(_ context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
		var in struct{ City string }
		c.Decode(&in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil
	},
}}}

// A replayed call the cassette does not hold is one mismatch, at that
// call, diffed against the recorded call nearest to it; that recorded call
// is still there for the client to make: recorded Oslo then Rome, replayed
// Oslo, Lima, Rome, Lima fails (its diff names Rome's line) and Rome is
// served its recorded answer. Close reports Lima's mismatch and nothing
// else (Rome was made). In-process and over HTTP (stateful and stateless),
// at both revisions.
func TestMismatchLeavesTheNearestRecordedCall(t *testing.T) {
	for _, tr := range []string{"inprocess", "http", "stateless"} {
		for _, rev := range []client.Profile{client.Profile20251125, client.Profile20260728} {
			t.Run(tr+"/"+rev.String(), func(t *testing.T) {
				leakcheck.Check(t)
				live := weatherLive(t, tr)
				path := tempPath(t, "weather.jsonl")
				rec := open(t, path, live, &cassette.Options{Mode: cassette.ModeRecord})
				if _, err := weatherCalls(t, rec, rev, "Oslo", "Rome"); err != nil {
					t.Fatal(err)
				}
				if err := rec.Close(); err != nil {
					t.Fatal(err)
				}
				f := open(t, path, live, nil)
				outs, err := weatherCalls(t, f, rev, "Oslo", "Lima", "Rome")
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"sunny in Oslo", "mismatch", "sunny in Rome"}
				if diff := cmp.Diff(want, outs); diff != "" {
					t.Errorf("replayed calls mismatch (-want +got):\n%s", diff)
				}
				closeErr := f.Close()
				var merr *cassette.MismatchError
				if !errors.As(closeErr, &merr) {
					t.Fatalf("Close = %v, want Lima's *MismatchError", closeErr)
				}
				romeLine := lineOf(t, path, `"Rome"`)
				if merr.Position != romeLine || !strings.Contains(merr.Diff, "Lima") || !strings.Contains(merr.Diff, "Rome") {
					t.Errorf("mismatch at line %d with diff\n%s\nwant it against Rome's line %d", merr.Position, merr.Diff, romeLine)
				}
				if us := f.Unused(); len(us) != 0 {
					t.Errorf("Unused = %v, want none: Rome was made", us)
				}
			})
		}
	}
}

// weatherLive serves the weather fake over tr until cleanup.
func weatherLive(t *testing.T, tr string) transport.Factory {
	t.Helper()
	fake, err := fakeserver.New(&fakeserver.Options{Custom: weather})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	if tr == "inprocess" {
		return fake.Factory()
	}
	hs, err := fake.StartHTTP("127.0.0.1:0", &fakeserver.HTTPOptions{Stateless: tr == "stateless"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	return httpLive(t, hs.URL, nil)
}

// weatherCalls asks f for the weather of each city with this module's
// client at rev, and returns each answer's text, or "mismatch" for a call
// that failed with a replay mismatch; any other failure is the error.
func weatherCalls(t *testing.T, f transport.Factory, rev client.Profile, cities ...string) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "weather", Profile: rev, Transport: f}, nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var outs []string
	for _, city := range cities {
		res, err := c.CallTool(ctx, "get_weather", map[string]any{"city": city})
		var ce *client.Error
		switch {
		case errors.As(err, &ce) && ce.Class == client.ClassMismatch:
			outs = append(outs, "mismatch")
		case err != nil:
			return outs, err
		default:
			outs = append(outs, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	return outs, nil
}

// lineOf returns the line of the cassette at path holding the first client
// message with text.
func lineOf(t *testing.T, path, text string) int {
	t.Helper()
	for _, m := range load(t, path).Messages() {
		if m.From == cassette.FromClient && strings.Contains(string(m.Message), text) {
			return m.Line
		}
	}
	t.Fatalf("%s has no client message holding %s", path, text)
	return 0
}

// A fault addressed by request ("the second tools/call of get_weather")
// acts on the same call whatever the revision, though the call's message
// number differs between them: the first call is answered, the second
// dies with the server (its outcome unknown), in-process and over HTTP.
// The same fault by number would hit another message on the other
// revision.
func TestFaultByRequestSurvivesARevisionChange(t *testing.T) {
	fault, err := cassette.ParseFault("end@tools/call=get_weather#2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{"inprocess", "http"} {
		numbers := map[client.Profile]int{}
		for _, rev := range []client.Profile{client.Profile20251125, client.Profile20260728} {
			t.Run(tr+"/"+rev.String(), func(t *testing.T) {
				leakcheck.Check(t)
				path := tempPath(t, "weather.jsonl")
				rec := open(t, path, weatherLive(t, tr), &cassette.Options{Mode: cassette.ModeRecord})
				if _, err := weatherCalls(t, rec, rev, "Oslo", "Rome"); err != nil {
					t.Fatal(err)
				}
				if err := rec.Close(); err != nil {
					t.Fatal(err)
				}
				numbers[rev] = numberOf(t, path, cassette.FromServer, "sunny in Rome")
				f := open(t, path, nil, &cassette.Options{Faults: []cassette.Fault{fault}})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				c, err := client.Connect(ctx, client.Definition{Name: "weather", Profile: rev, Transport: f}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := c.CallTool(ctx, "get_weather", map[string]any{"city": "Oslo"}); err != nil {
					t.Errorf("the first call: %v", err)
				}
				_, err = c.CallTool(ctx, "get_weather", map[string]any{"city": "Rome"})
				if !errors.Is(err, client.ErrOutcomeUnknown) {
					t.Errorf("the second call = %v, want it to die with the server, its outcome unknown", err)
				}
			})
		}
		if numbers[client.Profile20251125] == numbers[client.Profile20260728] {
			t.Errorf("%s: Rome's answer is message %d on both revisions; the test shows nothing", tr, numbers[client.Profile20251125])
		}
	}
}

// A fault addressed by a request that asks for input acts on the answer
// to its last round: on 2026-07-28 the client answers the input-required
// result (the elicitation handler runs) and sends the continuation, whose
// answer the session ends at; on 2025-11-25 the server asks during the
// one call. Either way the handler runs once and the call dies.
func TestFaultByRequestActsOnItsLastRound(t *testing.T) {
	for _, rev := range []client.Profile{client.Profile20251125, client.Profile20260728} {
		t.Run(rev.String(), func(t *testing.T) {
			leakcheck.Check(t)
			fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogRich})
			if err != nil {
				t.Fatal(err)
			}
			defer fake.Close()
			asked := 0
			h := &client.Handlers{Elicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
			}}
			elicit := func(f transport.Factory) error {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				c, err := client.Connect(ctx, client.Definition{Name: "rich", Profile: rev, Transport: f}, h)
				if err != nil {
					t.Fatal(err)
				}
				defer testkit.CloseWithin(t, c, 20*time.Second)
				_, err = c.CallTool(ctx, "elicit", map[string]any{"question": "ok?"})
				return err
			}
			path := tempPath(t, "rich.jsonl")
			rec := open(t, path, fake.Factory(), &cassette.Options{Mode: cassette.ModeRecord})
			if err := elicit(rec); err != nil {
				t.Fatal(err)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			asked = 0
			f := open(t, path, nil, &cassette.Options{Faults: []cassette.Fault{{Kind: cassette.FaultEnd, Method: "tools/call", Name: "elicit"}}})
			if err := elicit(f); !errors.Is(err, client.ErrOutcomeUnknown) {
				t.Errorf("the call = %v, want it to die at its last answer, its outcome unknown", err)
			}
			if asked != 1 {
				t.Errorf("the elicitation handler ran %d times, want 1", asked)
			}
		})
	}
}

// The notifications of a 2026-07-28 subscriptions/listen stream keep their
// place in replay, as the standalone GET stream's do: the list change a
// later call caused goes out after that call, not as soon as the listen is
// served (at Connect, which then re-discovered a catalog the recording did
// not hold yet, and failed the session's next listing).
func TestListenNotificationsKeepTheirPlace(t *testing.T) {
	leakcheck.Check(t)
	fake, err := fakeserver.New(&fakeserver.Options{Catalog: fakeserver.CatalogRich})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	hs, err := fake.StartHTTP("127.0.0.1:0", &fakeserver.HTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	session := func(f transport.Factory) (before []string, toggled bool) {
		changed := make(chan string, 4)
		h := &client.Handlers{ListChanged: func(what string, cat *client.Catalog) {
			if cat.Tool("ephemeral") != nil {
				changed <- what
			}
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := client.Connect(ctx, client.Definition{Name: "rich", Profile: client.Profile20260728, Transport: f}, h)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.Catalog().Tool("ephemeral") != nil {
			before = append(before, "Connect's catalog holds ephemeral")
		}
		if _, err := c.Session().ListTools(ctx, nil); err != nil {
			before = append(before, "tools/list after Connect: "+err.Error())
		}
		if _, err := c.CallTool(ctx, "toggle", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			return before, true
		case <-ctx.Done():
			return before, false
		}
	}
	path := tempPath(t, "listen.jsonl")
	rec := open(t, path, httpLive(t, hs.URL, nil), &cassette.Options{Mode: cassette.ModeRecord})
	if before, toggled := session(rec); len(before) > 0 || !toggled {
		t.Fatalf("live: %v, list change heard %v", before, toggled)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f := open(t, path, nil, nil)
	before, toggled := session(f)
	if len(before) > 0 || !toggled {
		t.Errorf("replayed: %v, list change heard %v; want nothing before the toggle, and its change after", before, toggled)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
