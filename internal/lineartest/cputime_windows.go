package lineartest

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The performance counter: Go's clock on Windows is the interrupt time,
// which Wine advances in steps of up to 16 ms, so a parser's few
// milliseconds read as 0 or as a step, and any ratio of two of them is
// noise. The counter is the system's fine-grained clock.
var (
	queryPerformanceCounter   = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceCounter")
	queryPerformanceFrequency = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceFrequency")
)

// threadTime is the performance counter's time, where a thread's
// processor time is not known finely enough (GetThreadTimes counts in the
// scheduler's ticks, 10 ms under Wine).
func threadTime() time.Duration {
	var count, freq int64
	if r, _, _ := queryPerformanceFrequency.Call(uintptr(unsafe.Pointer(&freq))); r == 0 || freq <= 0 {
		return time.Duration(time.Now().UnixNano())
	}
	if r, _, _ := queryPerformanceCounter.Call(uintptr(unsafe.Pointer(&count))); r == 0 {
		return time.Duration(time.Now().UnixNano())
	}
	// In two parts, so that count*1e9 does not overflow.
	return time.Duration(count/freq)*time.Second + time.Duration(count%freq*int64(time.Second)/freq)
}

// moreRuns is how many more times the larger input is timed after the
// first: the counter is the clock, so a run the machine's other work
// interrupted counts in full, and the larger input's longer runs are
// interrupted more often; the best of more runs is the parser's.
const moreRuns = 5

// fast is a time for the larger input under which the parser passes
// without being compared. Longer than elsewhere: the counter is the clock,
// so a run of a few tens of milliseconds is as much the machine's other
// work as the parser's, while a quadratic parser takes seconds on 1 MiB.
const fast = 100 * time.Millisecond
