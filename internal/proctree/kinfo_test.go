package proctree

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// macOS's process table is read on every system here, from made-up
// kinfo_proc values: what proc_darwin.go reads of each process.

func comm(s string) (c [17]byte) {
	copy(c[:], s)
	return c
}

func TestKinfoProc(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    kinfo
		want Proc
		run  bool
	}{
		{"being created", kinfo{pid: 10, ppid: 1, pgid: 10, stat: sIdl, startSec: 2, startUsec: 3, comm: comm("new")},
			Proc{Pid: 10, PPid: 1, Pgid: 10, State: 'R', Start: 2_000_003, Name: "new"}, true},
		{"runnable", kinfo{pid: 11, ppid: 10, pgid: 10, stat: sRun, comm: comm("run")},
			Proc{Pid: 11, PPid: 10, Pgid: 10, State: 'R', Name: "run"}, true},
		{"sleeping", kinfo{pid: 12, stat: sSleep, comm: comm("sleep")},
			Proc{Pid: 12, State: 'S', Name: "sleep"}, true},
		{"stopped", kinfo{pid: 13, stat: sStop, comm: comm("stop")},
			Proc{Pid: 13, State: 'T', Name: "stop"}, true},
		{"zombie", kinfo{pid: 14, stat: sZomb, comm: comm("dead")},
			Proc{Pid: 14, State: 'Z', Name: "dead"}, false},
		{"unknown state counts as running", kinfo{pid: 15, stat: 9, comm: comm("odd")},
			Proc{Pid: 15, State: '?', Name: "odd"}, true},
		{"a name of 16 bytes", kinfo{pid: 16, stat: sRun, comm: comm("0123456789abcdef")},
			Proc{Pid: 16, State: 'R', Name: "0123456789abcdef"}, true},
		{"a start time of the epoch in microseconds", kinfo{pid: 17, stat: sRun, startSec: 1_700_000_000, startUsec: 999_999},
			Proc{Pid: 17, State: 'R', Start: 1_700_000_000_999_999}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.k.proc()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("proc() mismatch (-want +got):\n%s", diff)
			}
			if got.Running() != tc.run {
				t.Errorf("Running() = %v, want %v", got.Running(), tc.run)
			}
		})
	}
}
