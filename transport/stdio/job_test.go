package stdio

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// accessViolation is the exit code Windows gives a process that crashed on
// a bad address (STATUS_ACCESS_VIOLATION).
var accessViolation uint32 = 0xC0000005

// A child of a job that Close terminated reads as killed by SIGKILL, as on
// Unix; one that exited by itself, with any code (the termination's own
// included), reads as exited.
func TestJobExit(t *testing.T) {
	for _, tt := range []struct {
		code       uint32
		terminated bool
		want       exitStatus
	}{
		{0, false, exitStatus{code: 0}},
		{3, false, exitStatus{code: 3}},
		{jobKilledCode, false, exitStatus{code: jobKilledCode}},
		{jobKilledCode, true, exitStatus{code: -1, signal: "SIGKILL"}},
		{0, true, exitStatus{code: 0}},                                   // it exited by itself while Close terminated the job
		{accessViolation, false, exitStatus{code: int(accessViolation)}}, // as os.ProcessState.ExitCode gives it (-1 means a kill)
	} {
		if got := jobExit(tt.code, tt.terminated); got != tt.want {
			t.Errorf("jobExit(%#x, %v) = %+v, want %+v", tt.code, tt.terminated, got, tt.want)
		}
	}
}

// jobList lays out a JOBOBJECT_BASIC_PROCESS_ID_LIST as Windows does.
func jobList(ptrSize int, assigned uint32, pids ...uint64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, assigned)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(pids)))
	for _, p := range pids {
		if ptrSize == 8 {
			b = binary.LittleEndian.AppendUint64(b, p)
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(p))
		}
	}
	return b
}

func TestJobPids(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		pids, whole := jobPids(jobList(ptr, 3, 100, 204, 4008), ptr)
		if diff := cmp.Diff([]int{100, 204, 4008}, pids); diff != "" || !whole {
			t.Errorf("jobPids(%d-byte ids) = %v, %v (-want +got):\n%s", ptr, pids, whole, diff)
		}
		if _, whole := jobPids(jobList(ptr, 5, 100, 204), ptr); whole {
			t.Errorf("jobPids(2 of 5 listed, %d-byte ids) whole = true, want false", ptr)
		}
		short := jobList(ptr, 2, 100, 204)
		if _, whole := jobPids(short[:len(short)-1], ptr); whole {
			t.Errorf("jobPids(cut short, %d-byte ids) whole = true, want false", ptr)
		}
	}
	if pids, whole := jobPids(jobList(8, 0), 8); len(pids) != 0 || !whole {
		t.Errorf("jobPids(empty job) = %v, %v", pids, whole)
	}
	if _, whole := jobPids([]byte{1, 2, 3}, 8); whole {
		t.Error("jobPids(3 bytes) whole = true")
	}
}
