//go:build unix

package stdio_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The children that need a Unix system: sessions (setsid), SIGTERM and
// SIGUSR1, and a thread's own exit.
func init() { maps.Copy(children, unixChildren) }

var unixChildren = map[string]func() int{
	// streams writes to stderr, for each of its descriptors 0, 1 and 2,
	// "N blocking" or "N non-blocking", and exits.
	"streams": func() int {
		for fd := range 3 {
			fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			switch {
			case err != nil:
				fmt.Fprintf(os.Stderr, "%d %v\n", fd, err)
			case fl&unix.O_NONBLOCK != 0:
				fmt.Fprintf(os.Stderr, "%d non-blocking\n", fd)
			default:
				fmt.Fprintf(os.Stderr, "%d blocking\n", fd)
			}
		}
		return 0
	},
	// spawner answers each request line with an empty result for its id;
	// at the first it first starts a "hang" grandchild in a session of its
	// own and records "grandchild PID". It exits when stdin ends.
	"spawner": func() int {
		in := bufio.NewScanner(os.Stdin)
		for n := 0; in.Scan(); n++ {
			if n == 0 {
				pid, err := spawn("hang", nil, true)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 1
				}
				record(fmt.Sprintf("grandchild %d", pid))
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.ID == nil {
				continue
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID)
		}
		return 0
	},
	// setsid starts a "hang" grandchild in a session of its own (so out of
	// the child's process group), records "grandchild PID", and exits when
	// stdin ends, leaving the grandchild.
	"setsid": func() int {
		pid, err := spawn("hang", nil, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", pid))
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// setsidterm starts a "termpid" grandchild in a session of its own and
	// records "grandchild PID"; it ignores the end of stdin, and at SIGTERM
	// waits (up to 3s) until the grandchild has recorded its own SIGTERM,
	// then exits: the grandchild's signal is then seen before the freeze
	// that precedes SIGKILL could stop it.
	"setsidterm": func() int {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		pid, err := spawn("termpid", nil, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", pid))
		go io.Copy(io.Discard, os.Stdin)
		<-sigs
		want := fmt.Sprintf("sigterm %d", pid)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) { // polling with a deadline: the grandchild's record is a file
			if slices.Contains(readRecord(os.Getenv(recordEnv)), want) {
				break
			}
		}
		return 0
	},
	// termpid records "ready PID" once it handles SIGTERM, then "sigterm
	// PID" at each SIGTERM, which it otherwise ignores.
	"termpid": func() int {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		record(fmt.Sprintf("ready %d", os.Getpid()))
		for range sigs {
			record(fmt.Sprintf("sigterm %d", os.Getpid()))
		}
		return 0
	},
	// doublefork starts an "intermediate" child that starts a "hang"
	// grandchild with setsid and records "grandchild PID" and "intermediate
	// PID"; the intermediate exits when the first line arrives on this
	// child's stdin, orphaning the grandchild. It exits when stdin ends.
	"doublefork": func() int {
		r, w, err := os.Pipe()
		if err != nil {
			return 1
		}
		pid, err := spawn("intermediate", r, false)
		r.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("intermediate %d", pid))
		in := bufio.NewReader(os.Stdin)
		in.ReadString('\n')
		w.Close()
		io.Copy(io.Discard, in)
		return 0
	},
	// intermediate starts a "hang" grandchild with setsid, records it, and
	// exits when its stdin ends.
	"intermediate": func() int {
		pid, err := spawn("hang", nil, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", pid))
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// quickfork is a daemon's double fork: an intermediate ("escape") starts
	// a "hang" grandchild with setsid and exits at once. It records
	// "grandchild PID" and exits when stdin ends.
	"quickfork": func() int {
		if _, err := spawn("escape", nil, false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// groupfork is a double fork that keeps the process group: an
	// intermediate ("groupescape") starts a "hang" grandchild without
	// setsid and exits at once. It exits when stdin ends.
	"groupfork": func() int {
		if _, err := spawn("groupescape", nil, false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// groupescape starts a "hang" grandchild in its own process group,
	// records "grandchild PID", and exits.
	"groupescape": func() int {
		pid, err := spawn("hang", nil, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", pid))
		return 0
	},
	// hopper starts a "hop" in a session of its own and waits for stdin to
	// end.
	"hopper": func() int {
		pid, err := spawn("hop", nil, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("hop %d", pid))
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// hop keeps moving: every millisecond it starts another hop in a new
	// session, records it, and exits, so that its line is never still.
	"hop": func() int {
		time.Sleep(time.Millisecond)
		pid, err := spawn("hop", nil, true)
		if err != nil {
			return 1
		}
		record(fmt.Sprintf("hop %d", pid))
		return 0
	},
	// leaderexits starts a "hang" grandchild with setsid from a thread other
	// than its leader and records it; then its leader thread exits alone,
	// and the rest of the process waits for stdin to end.
	"leaderexits": func() int {
		debug.SetGCPercent(-1) // the world cannot be stopped without the leader
		done := make(chan struct{})
		go func() {
			pid, err := spawn("hang", nil, true)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			record(fmt.Sprintf("grandchild %d", pid))
			close(done)
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		<-done
		syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // this thread alone
		return 0
	},
	// escape starts a "hang" grandchild with setsid, records it, and exits.
	"escape": func() int {
		pid, err := spawn("hang", nil, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		record(fmt.Sprintf("grandchild %d", pid))
		return 0
	},
}

// hang ignores SIGTERM and waits for a signal that never comes.
func hang() {
	signal.Ignore(syscall.SIGTERM)
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	<-c
}

// spawn starts the test binary in mode, sharing this process's stdout and
// stderr, with stdin (nil: none), in a session of its own if setsid, and
// returns its pid.
func spawn(mode string, stdin *os.File, setsid bool) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
}
