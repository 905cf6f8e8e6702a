package startup

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent is GOGC as the runtime has it now.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

var sink [][]byte

// garbage allocates n bytes that are garbage at once.
func garbage(n int) {
	for range n / (64 << 10) {
		sink = append(sink[:0], make([]byte, 64<<10))
	}
	sink = nil
}

// No cycle runs before the heap reaches the size asked for; the first one
// puts GOGC back.
func TestDelayFirstCollection(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: DelayFirstCollection leaves it alone")
	}
	runtime.GC()
	was := gcPercent()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	before := stats.NumGC
	DelayFirstCollection(64 << 20)
	garbage(16 << 20) // four times the heap a first cycle waits for by default
	runtime.ReadMemStats(&stats)
	if stats.NumGC != before {
		t.Errorf("%d cycles ran before the heap reached its size", stats.NumGC-before)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != was {
		if time.Now().After(deadline) {
			debug.SetGCPercent(was)
			t.Fatalf("GOGC still %d after the first cycle, want %d", gcPercent(), was)
		}
		time.Sleep(time.Millisecond)
	}
}
