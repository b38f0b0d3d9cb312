package vcr_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/cassette/vcr"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// memFS is go-vcr storage in memory.
type memFS struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.files[name]; ok {
		return b, nil
	}
	return nil, fs.ErrNotExist
}

func (m *memFS) WriteFile(name string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[name] = data
	return nil
}

func (m *memFS) IsFileExists(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.files[name]
	return ok
}

// A cassette recorded through go-vcr storage: nothing is written to disk.
func ExampleApply() {
	fake, err := fakeserver.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	mem := &memFS{files: map[string][]byte{}}
	opts := vcr.Apply(&cassette.Options{Mode: cassette.ModeRecord}, &vcr.Options{FS: mem})
	f, err := cassette.Open("docs.cassette", fake.Factory(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.CallTool(ctx, "lookup", map[string]any{"query": "vcr"}); err != nil {
		fmt.Println(err)
	}
	c.Close()
	if err := f.Close(); err != nil {
		fmt.Println(err)
	}
	_, statErr := os.Stat("docs.cassette")
	fmt.Println("in memory:", mem.IsFileExists("docs.cassette"), "on disk:", !errors.Is(statErr, fs.ErrNotExist))
	// Output: in memory: true on disk: false
}

// The go-vcr recorder mode of a cassette mode, and back.
func ExampleMode() {
	m := vcr.Mode(cassette.ModeRecordOnce)
	back, err := vcr.FromMode(m)
	fmt.Println(m, back, err)
	_, err = vcr.FromMode(recorder.ModeReplayWithNewEpisodes)
	fmt.Println(err)
	// Output:
	// RecordOnce record-once <nil>
	// vcr: go-vcr mode ReplayWithNewEpisodes has no equivalent: a cassette holds exactly one session
}
