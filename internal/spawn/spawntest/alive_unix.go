//go:build unix

package spawntest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Alive reports whether process pid runs: it exists and is not a zombie
// (a process that ended and waits for its parent, or a slow init, to
// reap it).
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// Reaped since kill, unless there is no /proc to ask: then trust kill.
		_, noProc := os.Stat("/proc/self/stat")
		return noProc != nil
	}
	// pid (comm) state ...; comm may hold spaces and parens.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || fields[0] != "Z"
}

// Kill kills process pid, if it still runs.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
