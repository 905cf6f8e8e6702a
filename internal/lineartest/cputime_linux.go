package lineartest

import (
	"runtime/debug"
	"time"

	"golang.org/x/sys/unix"
)

// threadTime is the processor time the calling thread has used: unlike
// the clock, it does not count the time other processes had the
// processor.
func threadTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quietGC holds the garbage collector off while a parse is timed, but
// for a heap past 1 GiB, and returns what restores it: the collector's
// assists run on the allocating thread and count as its time, and the
// larger input, collected more often and with a larger heap to mark,
// would time the collector, not the parser (a ratio of 10 seen for a
// linear scan on a loaded machine).
func quietGC() (restore func()) {
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(1 << 30)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// moreRuns is how many more times the larger input is timed after the
// first: the thread's own time needs few.
const moreRuns = 2

// fast is a time for the larger input under which the parser passes
// without being compared: too short to time well, and fast enough. A
// quadratic parse of 1 MiB takes seconds; a linear one near this floor
// is timed by the processor's caches (encoding/json on 1 MiB of object
// members takes 18 ms, 14 times its 256 KiB input's 1.3 ms, which fit
// them), so 50 ms, not 20, leaves the caches out of the verdict.
const fast = 50 * time.Millisecond
