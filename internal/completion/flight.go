package completion

import (
	"context"
	"sync"
)

// perDocument is how many requests of one document may be in flight: the
// latest, and the one it superseded while that unwinds.
const perDocument = 2

// flights schedules each document's requests: a new one cancels the one
// before it, and waits for a slot.
type flights struct {
	mu   sync.Mutex
	docs map[string]*docFlights
}

type docFlights struct {
	slots  chan struct{} // one token per request in flight
	cancel context.CancelFunc
	latest uint64 // the latest request's number
	users  int    // requests holding this entry
}

// begin starts a request of path: the request before it is cancelled, and
// this one waits for a slot. It returns the request's context, which ends
// when a later request begins, and done, which the request calls when it
// ends. An error says the request was superseded or cancelled before it
// got a slot.
func (f *flights) begin(ctx context.Context, path string) (context.Context, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	if f.docs == nil {
		f.docs = make(map[string]*docFlights)
	}
	d := f.docs[path]
	if d == nil {
		d = &docFlights{slots: make(chan struct{}, perDocument)}
		f.docs[path] = d
	}
	if d.cancel != nil {
		d.cancel() // superseded: its model call stops now
	}
	d.latest++
	me := d.latest
	d.cancel = cancel
	d.users++
	f.mu.Unlock()

	release := func() {
		cancel()
		f.mu.Lock()
		defer f.mu.Unlock()
		if d.latest == me {
			d.cancel = nil
		}
		if d.users--; d.users == 0 {
			delete(f.docs, path)
		}
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		release()
		return ctx, nil, ctx.Err()
	}
	return ctx, func() {
		<-d.slots
		release()
	}, nil
}

// supersede cancels path's request in flight, if there is one: a request
// answered without the model supersedes it as one that asks does.
func (f *flights) supersede(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.docs[path]; d != nil && d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
}
