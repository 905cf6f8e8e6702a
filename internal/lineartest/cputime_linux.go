package lineartest

import (
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
