// Package hook runs the hooks that package cassette/vcr adapts from
// go-vcr on a cassette's exchanges, in types of its own (Exchange, Hook,
// FS), so that package cassette runs them without linking go-vcr.
// Recording runs AfterCapture and BeforeSave hooks on every exchange;
// replay runs BeforeReplay hooks on an exchange just before serving it.
package hook

import "net/http"

// Kind is the stage a hook runs at.
type Kind int

// The stages, as go-vcr names them.
const (
	None         Kind = iota // a stage cassettes do not run
	AfterCapture             // when a recording is written, after redaction
	BeforeSave               // when a recording is written, after AfterCapture
	BeforeReplay             // just before replay serves an exchange's response
)

// String returns the stage's go-vcr name.
func (k Kind) String() string {
	switch k {
	case AfterCapture:
		return "AfterCapture"
	case BeforeSave:
		return "BeforeSave"
	case BeforeReplay:
		return "BeforeResponseReplay"
	}
	return "None"
}

// An Exchange is one HTTP exchange (one stream) as a hook sees it. The
// body of an event stream is its events as event-stream text.
type Exchange struct {
	ID          int
	Method, URL string
	ReqHeaders  http.Header
	ReqBody     string
	Code        int
	Status      string
	RespHeaders http.Header
	RespBody    string
	Discard     bool // leave the exchange out of the recording
}

// A Hook runs at one stage. Run is nil for a nil go-vcr hook.
type Hook struct {
	Kind Kind
	Run  func(*Exchange) error
}

// FS reads and writes cassette files (go-vcr's storage interface).
type FS interface {
	ReadFile(name string) ([]byte, error)
	WriteFile(name string, data []byte) error
	IsFileExists(name string) bool
}

// Set is the hooks and storage of one cassette.Options.
type Set struct {
	Hooks []Hook
	FS    FS // nil: files on disk
}
