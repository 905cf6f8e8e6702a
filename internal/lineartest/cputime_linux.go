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

// quietGC leaves the collector as it is: its work on other threads is
// not this thread's time.
func quietGC() (restore func()) { return func() {} }

// moreRuns is how many more times the larger input is timed after the
// first: the thread's own time needs few.
const moreRuns = 2

// fast is a time for the larger input under which the parser passes
// without being compared: too short to time well, and fast enough.
const fast = 20 * time.Millisecond
