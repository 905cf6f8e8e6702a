package completion

import (
	"sync"
	"sync/atomic"
	"time"
)

// Stats are an engine's counts since it started.
type Stats struct {
	Requests   int64 // completion requests
	ModelCalls int64 // of them, those that asked the model
	CacheHits  int64 // answered from the cache, with no model call
	Stale      int64 // answers dropped: the document changed meanwhile
	Cancelled  int64 // superseded or cancelled during their model call
	Debounced  int64 // superseded while they waited the debounce
	Private    int64 // refused: the file is private
	// Shown, Accepted and PartiallyAccepted are what the editor said of
	// the suggestions (didShowCompletion, the accept command,
	// didPartiallyAcceptCompletion).
	Shown, Accepted, PartiallyAccepted int64
	NextEdits                          int64 // next edit requests
	// Assembly is the longest time a prompt took to put together, and
	// AssemblyTotal their sum (over ModelCalls requests).
	Assembly, AssemblyTotal time.Duration
}

type counts struct {
	requests, modelCalls, cacheHits, stale, cancelled, debounced, private atomic.Int64
	shown, accepted, partial, nextEdits                                   atomic.Int64
	assembly                                                              durations
}

type durations struct {
	mu         sync.Mutex
	max, total time.Duration
}

func (d *durations) add(t time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.max = max(d.max, t)
	d.total += t
}

// Stats returns the counts so far.
func (e *Engine) Stats() Stats {
	c := &e.counts
	c.assembly.mu.Lock()
	longest, total := c.assembly.max, c.assembly.total
	c.assembly.mu.Unlock()
	return Stats{
		Requests: c.requests.Load(), ModelCalls: c.modelCalls.Load(), CacheHits: c.cacheHits.Load(),
		Stale: c.stale.Load(), Cancelled: c.cancelled.Load(), Debounced: c.debounced.Load(), Private: c.private.Load(),
		Shown: c.shown.Load(), Accepted: c.accepted.Load(), PartiallyAccepted: c.partial.Load(),
		NextEdits: c.nextEdits.Load(), Assembly: longest, AssemblyTotal: total,
	}
}

// Shown records that the editor showed a suggestion.
func (e *Engine) Shown() { e.counts.shown.Add(1) }

// Accepted records that the user took a suggestion whole.
func (e *Engine) Accepted() { e.counts.accepted.Add(1) }

// PartiallyAccepted records that the user took the start of a
// suggestion (a word, a line). The rest needs nothing kept: the next
// request finds it typed through.
func (e *Engine) PartiallyAccepted() { e.counts.partial.Add(1) }
