package stdio

import "encoding/binary"

// What Windows supervision decides, apart from the calls that carry it out
// (proc_windows.go), so that it is tested on every system.

// jobKilledCode is the exit code a job object's termination gives its
// processes: the shell's code for a process SIGKILL ended.
const jobKilledCode = 128 + 9

// jobExit is how a child of a job ended: by itself with code, or, when
// Close terminated its job and it ended with jobKilledCode, killed, which
// reads as SIGKILL as it does on Unix.
func jobExit(code uint32, terminated bool) exitStatus {
	if terminated && code == jobKilledCode {
		return exitStatus{code: -1, signal: "SIGKILL"}
	}
	return exitStatus{code: int(code)} // as os.ProcessState.ExitCode gives it

}

// jobPids reads a JOBOBJECT_BASIC_PROCESS_ID_LIST, as a machine with
// pointers of ptrSize bytes (4 or 8) lays it out in little-endian order:
// the processes assigned, the ids in the list, then the ids (ULONG_PTR),
// from offset 8 either way. It returns the ids and whether the list held
// every assigned process (when not, the buffer was too small).
func jobPids(buf []byte, ptrSize int) ([]int, bool) {
	if len(buf) < 8 || (ptrSize != 4 && ptrSize != 8) {
		return nil, false
	}
	assigned := binary.LittleEndian.Uint32(buf[0:])
	listed := binary.LittleEndian.Uint32(buf[4:])
	ids := buf[8:]
	if uint64(listed)*uint64(ptrSize) > uint64(len(ids)) {
		return nil, false
	}
	pids := make([]int, 0, listed)
	for i := range int(listed) {
		var id uint64
		if ptrSize == 8 {
			id = binary.LittleEndian.Uint64(ids[8*i:])
		} else {
			id = uint64(binary.LittleEndian.Uint32(ids[4*i:]))
		}
		pids = append(pids, int(id))
	}
	return pids, listed >= assigned
}
