package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// drainTimeout bounds how long the end of the connection waits for the
// request handlers it cancelled: a cancelled shell command's process group
// is killed and reaped by its handler, and the process must not exit before
// that. Handlers stop within milliseconds; the bound is for one that does
// not.
const drainTimeout = time.Second

// inflight counts the request handlers still running.
type inflight struct {
	mu      sync.Mutex
	n       int
	drained chan struct{} // closed when n drops to 0; nil while nobody waits
}

func (w *inflight) start() {
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
}

func (w *inflight) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 && w.drained != nil {
		close(w.drained)
		w.drained = nil
	}
}

// wait returns true once no handler runs, false if ctx ends first.
func (w *inflight) wait(ctx context.Context) bool {
	w.mu.Lock()
	if w.n == 0 {
		w.mu.Unlock()
		return true
	}
	if w.drained == nil {
		w.drained = make(chan struct{})
	}
	drained := w.drained
	w.mu.Unlock()
	select {
	case <-drained:
		return true
	case <-ctx.Done():
		return false
	}
}

// calls are the cancels of the requests being answered, by id, for
// $/cancelRequest: the read loop adds them, and each handler, possibly
// released from the loop, removes its own.
type calls struct {
	mu      sync.Mutex
	cancels map[jsonrpc2.ID]context.CancelFunc
}

func (c *calls) add(id jsonrpc2.ID, cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancels == nil {
		c.cancels = map[jsonrpc2.ID]context.CancelFunc{}
	}
	c.cancels[id] = cancel
}

func (c *calls) remove(id jsonrpc2.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cancels, id)
}

// cancel cancels the request id, if it is still being answered.
func (c *calls) cancel(id jsonrpc2.ID) {
	c.mu.Lock()
	cancel, ok := c.cancels[id]
	c.mu.Unlock()
	if ok {
		cancel()
	}
}
