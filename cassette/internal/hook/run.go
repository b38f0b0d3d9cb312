package hook

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/looprig/mcp/cassette/internal/format"
	"github.com/looprig/mcp/internal/sse"
)

// Apply runs the hooks of the given kinds, in that order, on every
// exchange of c, presented as an Exchange (package cassette/vcr shows
// it to go-vcr hooks as an Interaction), the body of an event stream being
// its events as event-stream text. What a hook changes
// is written back, except that it may not change the number of events of a
// stream. An exchange a hook marks DiscardOnSave is left out (when
// discardOK: in recording).
func Apply(c *format.Cassette, hooks []Hook, discardOK bool, kinds ...Kind) error {
	var run []Hook
	for _, k := range kinds {
		for _, h := range hooks {
			if h.Run != nil && h.Kind == k {
				run = append(run, h)
			}
		}
	}
	if len(run) == 0 {
		return nil
	}
	idx := format.StreamIndex(c.Interactions)
	streams := make([]int, 0, len(idx))
	for s := range idx {
		streams = append(streams, s)
	}
	slices.Sort(streams)
	discard := map[int]bool{}
	for n, s := range streams {
		sl := idx[s]
		vi := ToExchange(c.Interactions, sl)
		vi.ID = n
		for _, h := range run {
			if err := h.Run(vi); err != nil {
				return fmt.Errorf("%s hook on stream %d: %w", h.Kind, s, err)
			}
		}
		if vi.Discard && discardOK {
			discard[s] = true
			continue
		}
		if err := FromExchange(c.Interactions, sl, vi); err != nil {
			return fmt.Errorf("%s hook on stream %d: %w", run[0].Kind, s, err)
		}
	}
	if len(discard) > 0 {
		c.Interactions = slices.DeleteFunc(c.Interactions, func(in format.Interaction) bool { return in.HTTP != nil && discard[in.HTTP.Stream] })
	}
	return nil
}

func bodyText(in *format.Interaction) string {
	if in.Message != nil {
		return string(in.Message)
	}
	return in.Text
}

func ToExchange(ins []format.Interaction, sl *format.StreamLines) *Exchange {
	req := &ins[sl.Req]
	vi := &Exchange{Method: req.HTTP.Method, URL: req.HTTP.URL, ReqHeaders: req.HTTP.Headers.Clone(), ReqBody: bodyText(req)}
	if sl.Resp < 0 {
		return vi
	}
	resp := &ins[sl.Resp]
	vi.Code, vi.Status, vi.RespHeaders, vi.RespBody = resp.HTTP.Status, http.StatusText(resp.HTTP.Status), resp.HTTP.Headers.Clone(), bodyText(resp)
	if len(sl.Events) > 0 {
		var buf []byte
		for _, i := range sl.Events {
			buf, _ = sse.Append(buf, eventOf(&ins[i])) // a hook sees what Append can write
		}
		vi.RespBody = string(buf)
	}
	return vi
}

func FromExchange(ins []format.Interaction, sl *format.StreamLines, vi *Exchange) error {
	req := &ins[sl.Req]
	req.HTTP.Method, req.HTTP.URL, req.HTTP.Headers = vi.Method, vi.URL, emptyNil(vi.ReqHeaders)
	setBodyText(req, vi.ReqBody)
	if sl.Resp < 0 {
		return nil
	}
	resp := &ins[sl.Resp]
	resp.HTTP.Status, resp.HTTP.Headers = vi.Code, emptyNil(vi.RespHeaders)
	if len(sl.Events) == 0 {
		setBodyText(resp, vi.RespBody)
		return nil
	}
	evs, err := sse.Parse([]byte(vi.RespBody))
	if err != nil {
		return err
	}
	if len(evs) != len(sl.Events) {
		return fmt.Errorf("the stream's %d events became %d: a hook may change events, not add or remove them", len(sl.Events), len(evs))
	}
	for k, i := range sl.Events {
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
func eventOf(in *format.Interaction) sse.Event {
	e := sse.Event{Name: in.HTTP.Event, ID: in.HTTP.ID, Retry: in.HTTP.Retry}
	if in.Message != nil {
		e.Data = in.Message
	} else if in.Text != "" {
		e.Data = []byte(in.Text)
	}
	return e
}

// setBodyText sets a line's body: a JSON-RPC message if it is one, else text.
func setBodyText(in *format.Interaction, s string) {
	in.Message, in.Text = nil, ""
	if s == "" {
		return
	}
	if canon, _, ok := format.AsMessage([]byte(s)); ok {
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
