package agent

import (
	"testing"
	"time"
)

// clockPatience bounds a wait for what must happen soon.
const clockPatience = 10 * time.Second

// A run's clock starts on its first Resume, and runs only once every
// Pause was resumed.
func TestRunClockPauses(t *testing.T) {
	fired := make(chan struct{})
	c := &runClock{expire: func() { close(fired) }} // no time left
	c.Pause()
	c.Pause()
	c.Resume()
	c.mu.Lock()
	running := c.timer != nil
	c.mu.Unlock()
	if running {
		t.Fatal("the clock runs while paused once more")
	}
	c.Resume()
	select {
	case <-fired:
	case <-time.After(clockPatience):
		t.Fatal("the clock did not run once resumed")
	}
}
