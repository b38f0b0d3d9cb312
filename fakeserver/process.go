package fakeserver

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// process is what a stdio child's faults act on.
type process struct {
	stdout   *lockedWriter
	stderr   io.Writer
	exitFn   func(int)
	stopFile string

	// stopMu serializes appends to the stop file.
	stopMu sync.Mutex
}

func (p *process) exit(code int) { p.exitFn(code) }

// malformedFrame is the line FaultMalformed writes: not JSON.
const malformedFrame = "this is not a JSON-RPC frame\n"

// writeMalformed writes a line that is not JSON between two frames.
func (p *process) writeMalformed() { p.stdout.Write([]byte(malformedFrame)) }

// flood writes n bytes to stderr: lines of 63 'E' and a newline, the last
// one cut short.
func (p *process) flood(n int) {
	line := append(bytes.Repeat([]byte("E"), 63), '\n')
	buf := bytes.Repeat(line, n/len(line)+1)[:n]
	p.stderr.Write(buf)
}

// recordStop appends what to the stop file, one line, synced to disk.
func (p *process) recordStop(what string) {
	if p.stopFile == "" {
		return
	}
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	f, err := os.OpenFile(p.stopFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(p.stderr, "fakeserver: stop file: %v\n", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(what + "\n"); err != nil {
		fmt.Fprintf(p.stderr, "fakeserver: stop file: %v\n", err)
		return
	}
	f.Sync()
}

// spawnGrandchild re-executes this program, with the same arguments, in
// sleep mode (see sleepEnv). It runs in this process's group, or with
// setsid in a session of its own. Its standard streams are on /dev/null.
// Its pid goes to pidFile if set. It is not waited for. It is there to
// outlive its parent unless the group is killed (or, out of the group,
// unless it is found and killed).
func spawnGrandchild(pidFile string, setsid bool) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("fakeserver: grandchild: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), sleepEnv+"=1")
	if setsid {
		if err := ownSession(cmd); err != nil {
			return fmt.Errorf("fakeserver: grandchild: %w", err)
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("fakeserver: grandchild: %w", err)
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	if pidFile != "" {
		return writeFileAtomic(pidFile, []byte(strconv.Itoa(pid)+"\n"))
	}
	return nil
}

// sleepForever is the grandchild's whole life.
func sleepForever() {
	for {
		time.Sleep(time.Hour) // not synchronisation: waiting to be killed
	}
}

// lockedWriter makes each Write whole, so that the malformed line never
// lands inside a frame. The go-sdk writes one frame per Write.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eofReader reports the end of stdin, and with hold set keeps the session
// open past it: Read then blocks until stop is closed.
type eofReader struct {
	r     io.Reader
	once  sync.Once
	onEOF func()
	hold  bool
	stop  <-chan struct{}
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(e.onEOF)
		if e.hold {
			<-e.stop
		}
	}
	return n, err
}
