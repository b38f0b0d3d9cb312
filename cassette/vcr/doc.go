// Package vcr connects cassettes to go-vcr v4 (gopkg.in/dnaeon/go-vcr.v4):
// its hooks, run on each exchange of a Streamable HTTP session, its
// storage interface, and its recorder modes.
//
// A cassette's HTTP level follows go-vcr's model without its file format
// (which cannot hold a stream whose events arrive over minutes). [Apply]
// adds go-vcr hooks and storage to a cassette.Options; each exchange (one
// stream) is presented to a hook as a go-vcr cassette.Interaction:
// Request.Method, URL, Headers and Body; Response.Code, Status, Headers and
// Body, the body of an event stream being its events as event-stream text.
// What a hook changes is written back, except that it may not change the
// number of events of a stream; an exchange a hook marks DiscardOnSave is
// left out of the recording.
//
//	scrub := recorder.NewHook(func(i *govcr.Interaction) error {
//		delete(i.Response.Headers, "X-Request-Id")
//		return nil
//	}, recorder.BeforeSaveHook)
//	opts := vcr.Apply(&cassette.Options{Mode: cassette.ModeRecord}, &vcr.Options{Hooks: []*recorder.Hook{scrub}})
//	f, err := cassette.Open("testdata/docs.cassette", live, opts)
//
// [Mode] and [FromMode] map cassette modes to go-vcr's and back.
package vcr
