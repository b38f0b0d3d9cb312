//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"testing"
)

// The kernel's last pid moves when a process starts, so that ScanIfNew
// does not skip the scan that would find it.
func TestLastPidMovesWhenAProcessStarts(t *testing.T) {
	before, ok := lastPid()
	if !ok {
		t.Skip("no /proc/loadavg")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	after, ok := lastPid()
	cmd.Wait()
	if !ok || after == before {
		t.Errorf("lastPid() after starting process %d = %d, %v; before %d: want it moved", cmd.Process.Pid, after, ok, before)
	}
}
