package vcr

import (
	"fmt"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/internal/hook"
	govcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Options are the go-vcr options of a cassette. A nil *Options means none.
type Options struct {
	// Hooks are go-vcr hooks run on each exchange of a Streamable HTTP
	// session, presented as a go-vcr cassette.Interaction:
	// AfterCaptureHook and BeforeSaveHook when the recording is written
	// (after the built-in redaction, so hooks never see a secret).
	// BeforeResponseReplayHook runs as in go-vcr: just before replay serves
	// an exchange's response, once for each exchange served, never for one
	// the client does not request; its error fails that request. What it
	// changes is served, not matched. A hook may rewrite
	// an exchange's events, not add or remove them. For a session that is
	// not Streamable HTTP, hooks are an *cassette.OptionsError (Option
	// "Hooks"); a nil hook is one too. If empty, no hook runs.
	Hooks []*recorder.Hook
	// FS reads and writes cassettes (go-vcr's storage interface):
	// cassette.Open reads, checks for and writes the cassette through it.
	// If nil, files are read from disk and written to it atomically (a
	// failed write leaves the old file).
	FS govcr.FS
}

// Apply returns a copy of o (nil: the zero cassette.Options) with v's
// hooks and storage, replacing any the copy had; o is not changed. Like
// any cassette.Options, the copy is meant to be shared by cassette.Open,
// Replay and Verify.
func Apply(o *cassette.Options, v *Options) *cassette.Options {
	var cp cassette.Options
	if o != nil {
		cp = *o
	}
	cp.VCR = nil
	if v != nil {
		set := &hook.Set{FS: v.FS}
		for _, h := range v.Hooks {
			set.Hooks = append(set.Hooks, adapt(h))
		}
		cp.VCR = set
	}
	return &cp
}

// kinds maps go-vcr's hook kinds to the stages a cassette runs.
var kinds = map[recorder.HookKind]hook.Kind{
	recorder.AfterCaptureHook:         hook.AfterCapture,
	recorder.BeforeSaveHook:           hook.BeforeSave,
	recorder.BeforeResponseReplayHook: hook.BeforeReplay,
}

// adapt returns h as a cassette runs it: on a hook.Exchange, shown to h as
// a go-vcr Interaction. A nil h (or handler) has a nil Run.
func adapt(h *recorder.Hook) hook.Hook {
	if h == nil || h.Handler == nil {
		return hook.Hook{}
	}
	return hook.Hook{Kind: kinds[h.Kind], Run: func(e *hook.Exchange) error {
		vi := &govcr.Interaction{
			ID:            e.ID,
			Request:       govcr.Request{Method: e.Method, URL: e.URL, Headers: e.ReqHeaders, Body: e.ReqBody},
			Response:      govcr.Response{Code: e.Code, Status: e.Status, Headers: e.RespHeaders, Body: e.RespBody},
			DiscardOnSave: e.Discard,
		}
		err := h.Handler(vi)
		e.Method, e.URL, e.ReqHeaders, e.ReqBody = vi.Request.Method, vi.Request.URL, vi.Request.Headers, vi.Request.Body
		e.Code, e.Status, e.RespHeaders, e.RespBody = vi.Response.Code, vi.Response.Status, vi.Response.Headers, vi.Response.Body
		e.Discard = vi.DiscardOnSave
		return err
	}}
}

// Mode returns the go-vcr recorder mode that corresponds to m:
// cassette.ModeReplay is go-vcr's ModeReplayOnly, cassette.ModeRecord its
// ModeRecordOnly, ModeRecordOnce and ModePassthrough the modes of the
// same names.
func Mode(m cassette.Mode) recorder.Mode {
	switch m {
	case cassette.ModeRecord:
		return recorder.ModeRecordOnly
	case cassette.ModeRecordOnce:
		return recorder.ModeRecordOnce
	case cassette.ModePassthrough:
		return recorder.ModePassthrough
	}
	return recorder.ModeReplayOnly
}

// FromMode returns the cassette.Mode that corresponds to a go-vcr recorder
// mode. go-vcr's ModeReplayWithNewEpisodes has none (a cassette holds
// exactly one session, so there is nothing to append to), and is an error.
func FromMode(m recorder.Mode) (cassette.Mode, error) {
	switch m {
	case recorder.ModeReplayOnly:
		return cassette.ModeReplay, nil
	case recorder.ModeRecordOnly:
		return cassette.ModeRecord, nil
	case recorder.ModeRecordOnce:
		return cassette.ModeRecordOnce, nil
	case recorder.ModePassthrough:
		return cassette.ModePassthrough, nil
	}
	return 0, fmt.Errorf("vcr: go-vcr mode %v has no equivalent: a cassette holds exactly one session", m)
}
