package cassette

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/looprig/mcp/cassette/internal/vcrext"
	"github.com/looprig/mcp/internal/sse"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Hook stages, as go-vcr names them.
const (
	afterCapture = recorder.AfterCaptureHook
	beforeSave   = recorder.BeforeSaveHook
	beforeReplay = recorder.BeforeResponseReplayHook
)

// The go-vcr options are set through vcrext by package cassette/vcr.
func init() {
	vcrext.Set = func(o any, e vcrext.Ext) { o.(*Options).vcr = e }
}

// applyHooks runs the hooks of the given kinds, in that order, on every
// exchange of c, presented as a go-vcr Interaction: Request.Method, URL,
// Headers and Body; Response.Code, Status, Headers and Body, the body of an
// event stream being its events as event-stream text. What a hook changes
// is written back, except that it may not change the number of events of a
// stream. An exchange a hook marks DiscardOnSave is left out (when
// discardOK: in recording).
func applyHooks(c *Cassette, hooks []*recorder.Hook, discardOK bool, kinds ...recorder.HookKind) error {
	var run []*recorder.Hook
	for _, k := range kinds {
		for _, h := range hooks {
			if h != nil && h.Kind == k {
				run = append(run, h)
			}
		}
	}
	if len(run) == 0 {
		return nil
	}
	idx := streamIndex(c.Interactions)
	streams := make([]int, 0, len(idx))
	for s := range idx {
		streams = append(streams, s)
	}
	slices.Sort(streams)
	discard := map[int]bool{}
	for n, s := range streams {
		sl := idx[s]
		vi := toVCR(c.Interactions, sl)
		vi.ID = n
		for _, h := range run {
			if err := h.Handler(vi); err != nil {
				return fmt.Errorf("%s hook on stream %d: %w", h.Kind, s, err)
			}
		}
		if vi.DiscardOnSave && discardOK {
			discard[s] = true
			continue
		}
		if err := fromVCR(c.Interactions, sl, vi); err != nil {
			return fmt.Errorf("%s hook on stream %d: %w", run[0].Kind, s, err)
		}
	}
	if len(discard) > 0 {
		c.Interactions = slices.DeleteFunc(c.Interactions, func(in Interaction) bool { return in.HTTP != nil && discard[in.HTTP.Stream] })
	}
	return nil
}

func bodyText(in *Interaction) string {
	if in.Message != nil {
		return string(in.Message)
	}
	return in.Text
}

func toVCR(ins []Interaction, sl *streamLines) *vcr.Interaction {
	req := &ins[sl.req]
	vi := &vcr.Interaction{Request: vcr.Request{
		Method: req.HTTP.Method, URL: req.HTTP.URL, Headers: req.HTTP.Headers.Clone(), Body: bodyText(req),
	}}
	if sl.resp < 0 {
		return vi
	}
	resp := &ins[sl.resp]
	vi.Response = vcr.Response{Code: resp.HTTP.Status, Status: http.StatusText(resp.HTTP.Status), Headers: resp.HTTP.Headers.Clone(), Body: bodyText(resp)}
	if len(sl.events) > 0 {
		var buf []byte
		for _, i := range sl.events {
			buf, _ = sse.Append(buf, eventOf(&ins[i])) // a hook sees what Append can write
		}
		vi.Response.Body = string(buf)
	}
	return vi
}

func fromVCR(ins []Interaction, sl *streamLines, vi *vcr.Interaction) error {
	req := &ins[sl.req]
	req.HTTP.Method, req.HTTP.URL, req.HTTP.Headers = vi.Request.Method, vi.Request.URL, emptyNil(vi.Request.Headers)
	setBodyText(req, vi.Request.Body)
	if sl.resp < 0 {
		return nil
	}
	resp := &ins[sl.resp]
	resp.HTTP.Status, resp.HTTP.Headers = vi.Response.Code, emptyNil(vi.Response.Headers)
	if len(sl.events) == 0 {
		setBodyText(resp, vi.Response.Body)
		return nil
	}
	evs, err := sse.Parse([]byte(vi.Response.Body))
	if err != nil {
		return err
	}
	if len(evs) != len(sl.events) {
		return fmt.Errorf("the stream's %d events became %d: a hook may change events, not add or remove them", len(sl.events), len(evs))
	}
	for k, i := range sl.events {
		in := &ins[i]
		in.HTTP.Event, in.HTTP.ID, in.HTTP.Retry = evs[k].Name, evs[k].ID, evs[k].Retry
		in.Message, in.Text = nil, ""
		if evs[k].Data != nil {
			setBodyText(in, string(evs[k].Data))
		}
	}
	return nil
}

// eventOf returns the event a line holds.
func eventOf(in *Interaction) sse.Event {
	e := sse.Event{Name: in.HTTP.Event, ID: in.HTTP.ID, Retry: in.HTTP.Retry}
	if in.Message != nil {
		e.Data = in.Message
	} else if in.Text != "" {
		e.Data = []byte(in.Text)
	}
	return e
}

// setBodyText sets a line's body: a JSON-RPC message if it is one, else text.
func setBodyText(in *Interaction, s string) {
	in.Message, in.Text = nil, ""
	if s == "" {
		return
	}
	if canon, _, ok := asMessage([]byte(s)); ok {
		in.Message = canon
		return
	}
	in.Text = s
}

func emptyNil(h http.Header) http.Header {
	if len(h) == 0 {
		return nil
	}
	return h
}
