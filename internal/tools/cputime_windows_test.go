package tools

import (
	"syscall"
	"time"
)

// cpuTime is the user and kernel time of this process; Windows keeps no
// total for the children it waited for, so rg's own time is left out.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(syscall.Handle(^uintptr(0)), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	// Filetimes count 100 ns ticks.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
