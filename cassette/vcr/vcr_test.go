package vcr_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/fakeserver"
	govcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Every cassette mode has its go-vcr mode and back; go-vcr's
// ModeReplayWithNewEpisodes has none.
func TestModes(t *testing.T) {
	want := map[cassette.Mode]recorder.Mode{
		cassette.ModeReplay:      recorder.ModeReplayOnly,
		cassette.ModeRecord:      recorder.ModeRecordOnly,
		cassette.ModeRecordOnce:  recorder.ModeRecordOnce,
		cassette.ModePassthrough: recorder.ModePassthrough,
	}
	got := map[cassette.Mode]recorder.Mode{}
	for m := range want {
		got[m] = vcr.Mode(m)
		back, err := vcr.FromMode(got[m])
		if err != nil || back != m {
			t.Errorf("FromMode(Mode(%v)) = %v, %v; want %v", m, back, err, m)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Mode mismatch (-want +got):\n%s", diff)
	}
	if m, err := vcr.FromMode(recorder.ModeReplayWithNewEpisodes); err == nil {
		t.Errorf("FromMode(ModeReplayWithNewEpisodes) = %v, want an error", m)
	}
}

// Apply carries the hooks into the options cassette.Open checks (a hook for
// a session that is not Streamable HTTP is refused, naming Hooks), copies
// them, leaves its input alone, and Apply(o, nil) takes them away again.
func TestApplyCarriesHooks(t *testing.T) {
	fake, err := fakeserver.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/docs.cassette"
	hooks := []*recorder.Hook{recorder.NewHook(func(*govcr.Interaction) error { return nil }, recorder.BeforeSaveHook)}
	base := &cassette.Options{Mode: cassette.ModeRecord, Secrets: []string{"s3cret"}}
	withHooks := vcr.Apply(base, &vcr.Options{Hooks: hooks})
	hooks[0] = nil // Apply copied the slice: its hook is still there
	_, err = cassette.Open(path, fake.Factory(), withHooks)
	var oe *cassette.OptionsError
	if !errors.As(err, &oe) || oe.Option != "Hooks" || !errors.Is(err, cassette.ErrInvalidOptions) {
		t.Fatalf("Open of an in-process cassette with a hook = %v, want an *OptionsError for Hooks", err)
	}
	if !slices.Equal(withHooks.Secrets, base.Secrets) || withHooks.Mode != base.Mode {
		t.Errorf("Apply lost the other options: %+v", withHooks)
	}
	// An HTTP cassette takes hooks; a nil one is refused, so the hook
	// Apply copied is still there.
	_, err = cassette.Open("../testdata/http.jsonl", nil, vcr.Apply(nil, &vcr.Options{Hooks: []*recorder.Hook{nil}}))
	if !errors.As(err, &oe) || oe.Option != "Hooks[0]" {
		t.Errorf("Open of an HTTP cassette with a nil hook = %v, want an *OptionsError for Hooks[0]", err)
	}
	replaying := *withHooks // a copy of the options keeps their hooks
	replaying.Mode = cassette.ModeReplay
	if f, err := cassette.Open("../testdata/http.jsonl", nil, &replaying); err != nil {
		t.Errorf("Open of an HTTP cassette with the hook Apply copied: %v", err)
	} else {
		f.Discard()
	}
	for name, o := range map[string]*cassette.Options{"the input": base, "Apply(o, nil)": vcr.Apply(withHooks, nil)} {
		f, err := cassette.Open(path, fake.Factory(), o)
		if err != nil {
			t.Errorf("Open with %s: %v, want no hooks", name, err)
			continue
		}
		f.Discard()
	}
}
