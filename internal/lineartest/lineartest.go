package lineartest

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Size is the size of the larger adversarial input.
const Size = 1 << 20

const (
	// maxRatio bounds the larger input's time over the smaller's: 4 is
	// linear, 16 quadratic.
	maxRatio = 9
	// hang is how long one run may take before it fails the check
	// without waiting for it.
	hang = 2 * time.Minute
)

// Repeat is an input of unit repeated to the size asked.
func Repeat(unit string) func(size int) string {
	return func(size int) string {
		return strings.Repeat(unit, size/len(unit)+1)[:size]
	}
}

// Linear fails t unless parse's time on input grows linearly with its
// size, input(size) being an input of about size bytes. parse runs on
// another goroutine: it reports with t.Errorf, not t.Fatalf.
func Linear(t testing.TB, name string, input func(size int) string, parse func(string)) {
	t.Helper()
	if raceEnabled {
		// The detector's work swamps the parser's: only a hang is told.
		in := input(Size / 16)
		if _, ok := best(1, in, parse); !ok {
			t.Errorf("%s: %d bytes still parsing after %v", name, len(in), hang)
		}
		return
	}
	bigInput, smallInput := input(Size), input(Size/4)
	tBig, ok := best(1, bigInput, parse)
	if ok && tBig < fast {
		t.Logf("%s: %d bytes in %v", name, len(bigInput), tBig)
		return
	}
	var more, tSmall time.Duration
	if ok {
		more, ok = best(moreRuns, bigInput, parse)
		tBig = min(tBig, more)
	}
	if ok {
		tSmall, ok = best(3, smallInput, parse)
	}
	if !ok {
		t.Errorf("%s: a run still parsing after %v", name, hang)
		return
	}
	if tBig < fast { // the first run was slow, not the parser
		t.Logf("%s: %d bytes in %v", name, len(bigInput), tBig)
		return
	}
	ratio := float64(tBig) / float64(max(tSmall, time.Microsecond))
	t.Logf("%s: %d bytes in %v, %d bytes in %v: %.1f times as long", name, len(bigInput), tBig, len(smallInput), tSmall, ratio)
	if ratio > maxRatio*float64(len(bigInput))/float64(4*len(smallInput)) {
		t.Errorf("%s: %d bytes took %.1f times as long as %d bytes: the parser is not linear in its input", name, len(bigInput), ratio, len(smallInput))
	}
}

// best is parse's shortest time on input over runs runs; false when a
// run did not end within hang (it is left running: the test binary ends
// it).
func best(runs int, input string, parse func(string)) (time.Duration, bool) {
	shortest := time.Duration(1<<63 - 1)
	for range runs {
		done := make(chan time.Duration, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			runtime.GC() // not the last run's garbage
			restore := quietGC()
			start := threadTime()
			// Deferred, so that a parse ended by runtime.Goexit is done;
			// the collector restored before the next run may begin.
			defer func() {
				d := threadTime() - start
				restore()
				done <- d
			}()
			parse(input)
		}()
		select {
		case d := <-done:
			shortest = min(shortest, d)
		case <-time.After(hang):
			return 0, false
		}
	}
	return shortest, true
}

// quietGC holds the garbage collector off while a parse is timed, but for
// a heap past 1 GiB, and returns what restores it. The collector's
// assists run on the allocating thread and count as its time, and the
// larger input, collected more often and with a larger heap to mark,
// would time the collector, not the parser (a ratio of 10 seen for a
// linear scan on a loaded Linux machine); under Wine a collection stops
// the world by suspending each thread through the wineserver,
// milliseconds apiece.
func quietGC() (restore func()) {
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(1 << 30)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
