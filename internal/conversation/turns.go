package conversation

import (
	"context"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Turns are a front end's running prompts, by session id: the one gate
// and the one cancel each session has. The zero value is ready to use.
type Turns struct {
	// cancel is how the front end's user cancels a prompt, for the busy
	// error (dialog.BusyError.Cancel).
	cancel string
	// mu guards running.
	mu      sync.Mutex
	running map[string]*Turn
}

// Turn is one running prompt of a session, from Begin to End.
type Turn struct {
	turns     *Turns
	sessionID string
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	once      sync.Once
}

// Begin claims sessionID for a prompt running under ctx. A session
// running a prompt refuses another with an *dialog.BusyError, unless that
// prompt was cancelled: Begin then waits for it to end (or for ctx).
func (ts *Turns) Begin(ctx context.Context, sessionID string) (*Turn, error) {
	for {
		ts.mu.Lock()
		prev := ts.running[sessionID]
		if prev == nil {
			t := &Turn{turns: ts, sessionID: sessionID, done: make(chan struct{})}
			t.ctx, t.cancel = context.WithCancel(ctx)
			if ts.running == nil {
				ts.running = map[string]*Turn{}
			}
			ts.running[sessionID] = t
			ts.mu.Unlock()
			return t, nil
		}
		ts.mu.Unlock()
		if prev.ctx.Err() == nil {
			return nil, &dialog.BusyError{SessionID: sessionID, Cancel: ts.cancel}
		}
		select {
		case <-prev.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Context is the turn's context: done when it is cancelled or ended.
func (t *Turn) Context() context.Context { return t.ctx }

// SessionID is the session the turn runs in.
func (t *Turn) SessionID() string { return t.sessionID }

// End cancels what the turn still runs and frees its session; later
// calls do nothing.
func (t *Turn) End() {
	t.once.Do(func() {
		t.cancel()
		ts := t.turns
		ts.mu.Lock()
		if ts.running[t.sessionID] == t {
			delete(ts.running, t.sessionID)
		}
		ts.mu.Unlock()
		close(t.done)
	})
}

// Cancel asks sessionID's running prompt to stop; false when none runs.
func (ts *Turns) Cancel(sessionID string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.running[sessionID]
	if ok {
		t.cancel()
	}
	return ok
}

// CancelAll asks every running prompt to stop and says how many there
// were.
func (ts *Turns) CancelAll() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.running {
		t.cancel()
	}
	return len(ts.running)
}

// Stop cancels sessionID's running prompt and waits for it to end (or
// for ctx), so that its session is saved before anything reads it again.
func (ts *Turns) Stop(ctx context.Context, sessionID string) {
	ts.mu.Lock()
	t := ts.running[sessionID]
	ts.mu.Unlock()
	if t == nil {
		return
	}
	t.cancel()
	select {
	case <-t.done:
	case <-ctx.Done():
	}
}

// Cancel asks the turn to stop; End still ends it.
func (t *Turn) Cancel() { t.cancel() }
