//go:build !linux && !windows

package lineartest

import "time"

// threadTime is the clock where a thread's processor time is not known.
func threadTime() time.Duration { return time.Duration(time.Now().UnixNano()) }

// moreRuns is how many more times the larger input is timed after the
// first.
const moreRuns = 2

// fast is a time for the larger input under which the parser passes
// without being compared: too short to time well, and fast enough.
const fast = 20 * time.Millisecond
