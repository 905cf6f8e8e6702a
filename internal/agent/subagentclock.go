package agent

import (
	"context"
	"sync"
	"time"
)

// subagentDeadline bounds a run in time: the context ends d after the
// start, not counting the time the Pauser was paused. A test replaces it
// to end a run at a point of its choosing.
type subagentDeadline func(ctx context.Context, d time.Duration) (context.Context, Pauser, context.CancelFunc)

// Pauser stops a run's clock while the user is asked, and starts it
// again, as 0.61's DeadlineTimer is paused while a subagent waits for a
// confirmation (bundle chunk-JDPZ4CE3.js:348897-348903). Calls nest.
type Pauser interface {
	Pause()
	Resume()
}

// realDeadline is a run's deadline on the wall clock.
func realDeadline(ctx context.Context, d time.Duration) (context.Context, Pauser, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	c := &runClock{left: d, expire: cancel}
	c.Resume()
	return ctx, c, func() {
		c.Pause()
		cancel()
	}
}

// runClock is a timer that can be paused.
type runClock struct {
	mu      sync.Mutex
	left    time.Duration
	started time.Time
	timer   *time.Timer // nil while paused
	pauses  int
	expire  func()
}

func (c *runClock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pauses++
	if c.timer != nil && c.timer.Stop() {
		c.left -= time.Since(c.started)
	}
	c.timer = nil
}

// Resume starts the clock once every Pause was resumed; the first Resume
// starts it.
func (c *runClock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pauses > 0 {
		c.pauses--
	}
	if c.pauses == 0 && c.timer == nil {
		c.started = time.Now()
		c.timer = time.AfterFunc(max(c.left, 0), c.expire)
	}
}
