//go:build !windows

package sandbox

import (
	"context"
	"testing"
	"time"
)

// A probe whose program leaves a child holding its output ends at its
// time-out all the same: the start-up does not wait for the child.
func TestProbeEndsThoughAChildHoldsItsOutput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan bool, 1)
	go func() {
		_, ok := runProbe(ctx, "sh", "-c", "sleep 30 & echo started; wait")
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("a probe cut off by its time-out answered")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the probe waited for the child holding its output")
	}
}
