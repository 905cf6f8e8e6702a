package spawntest

import "syscall"

// stillActive is GetExitCodeProcess's answer while the process runs.
const stillActive = 259

// Alive reports whether process pid runs: a handle to it opens and it has
// no exit code yet.
func Alive(pid int) bool {
	h, err := syscall.OpenProcess(syscall.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer syscall.CloseHandle(h)
	var code uint32
	return syscall.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// Kill kills process pid, if it still runs.
func Kill(pid int) {
	h, err := syscall.OpenProcess(syscall.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer syscall.CloseHandle(h)
	_ = syscall.TerminateProcess(h, 1)
}
