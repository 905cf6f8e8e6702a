package startup

import (
	"os"
	"runtime"
	"runtime/debug"
)

// defaultHeapMinimum is the heap the collector lets a program reach
// before its first cycle at GOGC=100 (the runtime's heapMinimum).
const defaultHeapMinimum = 4 << 20

// DelayFirstCollection has the collector wait for the heap to reach about
// size before its first cycle, then puts GOGC back as it was: a short
// process (a headless run) ends before it would collect, and a long one
// collects as before once it has. Go's own compiler does this
// (cmd/compile's AdjustStartingHeap). A GOGC the user set is left alone.
//
// It costs a short process nothing it would have kept: a collection
// before it ends frees what it would exit with, and walking the
// goroutines' stacks maps in function tables a run otherwise never reads
// (docs/benchmarks.md, issue 44).
func DelayFirstCollection(size uint64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	percent := int(size * 100 / defaultHeapMinimum)
	if percent <= 100 {
		return
	}
	was := debug.SetGCPercent(percent)
	// Garbage from here on: the first cycle frees it, and its cleanup
	// puts GOGC back. 32 bytes keeps it out of the tiny allocator, whose
	// blocks may outlive a cycle.
	type sentinel [32]byte
	runtime.AddCleanup(new(sentinel), func(was int) { debug.SetGCPercent(was) }, was)
}
