package background

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// MaxHistory is how many background processes a session keeps, running or
// ended, as Gemini CLI 0.61 keeps them (MAX_BACKGROUND_PROCESS_HISTORY_SIZE).
const MaxHistory = 100

// ErrClosed refuses a process added to a registry whose session ended.
var ErrClosed = errors.New("the session has ended: no background process can be started in it")

// Process is one background command, however it runs (on this machine, in
// the editor's terminal).
type Process interface {
	// PID identifies the process to the model.
	PID() int
	// Output is the output kept: its tail, and how many bytes came before
	// it and were not kept (-1: some, how many unknown). Reading it may
	// ask the editor (its terminal keeps it), hence ctx and the error.
	Output(ctx context.Context) (kept string, dropped int64, err error)
	// Done is closed once the process has ended.
	Done() <-chan struct{}
	// Exit is how it ended, once Done is closed: an exit code, or nil and
	// the signal that killed it.
	Exit() (code *int, signal string)
	// Kill ends the process and all it started; one that ended is no
	// error.
	Kill() error
}

// Entry is one process of a registry, as a listing shows it.
type Entry struct {
	Command string
	Process Process
}

// Running reports whether the entry's process has not ended yet.
func (e Entry) Running() bool {
	select {
	case <-e.Process.Done():
		return false
	default:
		return true
	}
}

// Registry is one session's background processes, oldest first.
type Registry struct {
	mu      sync.Mutex
	entries []Entry
	closed  bool
}

// Add keeps p, started for command. It refuses, killing p, once the
// registry is closed or when MaxHistory processes all still run.
func (r *Registry) Add(command string, p Process) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		_ = p.Kill() // The session is gone: p has no owner.
		return ErrClosed
	case len(r.entries) >= MaxHistory && !r.forgetOldestEnded():
		_ = p.Kill()
		return fmt.Errorf("%d background processes are running already, which is as many as a session keeps: stop one first", MaxHistory)
	}
	r.entries = append(r.entries, Entry{Command: command, Process: p})
	return nil
}

// forgetOldestEnded drops the oldest entry whose process ended; r.mu is
// held. It reports false when every process still runs.
func (r *Registry) forgetOldestEnded() bool {
	for i, e := range r.entries {
		if !e.Running() {
			r.entries = append(r.entries[:i], r.entries[i+1:]...)
			return true
		}
	}
	return false
}

// List is every process kept, oldest first.
func (r *Registry) List() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

// Get is the process of pid, if this registry keeps it.
func (r *Registry) Get(pid int) (Entry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if e.Process.PID() == pid {
			return e, true
		}
	}
	return Entry{}, false
}

// Close kills every process still running and refuses any added later. It
// returns the errors of the kills that failed; closing again does nothing.
func (r *Registry) Close() error {
	r.mu.Lock()
	entries := r.entries
	r.closed = true
	r.mu.Unlock()
	var errs []error
	for _, e := range entries {
		if e.Running() {
			if err := e.Process.Kill(); err != nil {
				errs = append(errs, fmt.Errorf("killing background process %d (%s): %w", e.Process.PID(), e.Command, err))
			}
		}
	}
	return errors.Join(errs...)
}
