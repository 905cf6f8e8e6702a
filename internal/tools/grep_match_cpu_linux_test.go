package tools

import (
	"syscall"
	"time"
)

// threadCPUTime is the CPU time the calling OS thread has used, so that a
// benchmark on a shared machine can report its speed without the time
// others' work took from it.
func threadCPUTime() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
