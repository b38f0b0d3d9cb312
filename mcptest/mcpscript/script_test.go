package mcpscript_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/looprig/mcp/mcptest"
	"github.com/looprig/mcp/mcptest/mcpscript"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the project's scenarios, testdata/script/*.txtar: one
// per lifecycle guarantee, each opening with what it proves.
func TestScripts(t *testing.T) {
	mcpscript.RunScripts(t, "testdata/script")
}

// scriptT is a testscript.T that runs each script on a goroutine of its
// own and records what it logs, so that a test can run a script that is
// meant to fail.
type scriptT struct {
	mu     sync.Mutex // guards log, failed
	log    []string
	failed bool
}

func (s *scriptT) Skip(args ...any)  { s.Log(args...); runtime.Goexit() }
func (s *scriptT) Fatal(args ...any) { s.Log(args...); s.FailNow() }
func (s *scriptT) Parallel()         {}
func (s *scriptT) Verbose() bool     { return false }
func (s *scriptT) Log(args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprint(args...))
}
func (s *scriptT) FailNow() {
	s.mu.Lock()
	s.failed = true
	s.mu.Unlock()
	runtime.Goexit()
}
func (s *scriptT) Run(_ string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(s)
	}()
	<-done
}

// runScript runs one script (txtar text) with mcptest's Params and returns
// whether it failed and what it logged.
func runScript(t *testing.T, script string) (failed bool, log string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &scriptT{}
	testscript.RunT(st, mcpscript.Params(dir))
	return st.failed, strings.Join(st.log, "\n")
}

// serve without -http refuses a fault that acts on HTTP requests, which
// an in-process fake would leave undone.
func TestServeRefusesHTTPFaultsInProcess(t *testing.T) {
	mcptest.LeakCheck(t)
	failed, log := runScript(t, "serve s --fault drop@lookup:0\n")
	if !failed || !strings.Contains(log, `serve s: fakeserver: fault "drop@lookup:0": invalid fault: it does not act in-process, only over Streamable HTTP`) {
		t.Errorf("script failed %v, log:\n%s\nwant a failure refusing the fault", failed, log)
	}
	if failed, log := runScript(t, "serve -http s --fault drop@lookup:0\n"); failed {
		t.Errorf("serve -http with the fault failed:\n%s", log)
	}
}
