package background

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// MaxHistory is how many background processes a session keeps, running or
// ended, as Gemini CLI 0.61 keeps them (MAX_BACKGROUND_PROCESS_HISTORY_SIZE).
const MaxHistory = 100

// ErrClosed refuses a process added to a registry whose session ended.
var ErrClosed = errors.New("the session has ended: no background process can be started in it")

// Entry is one process of a registry, as a listing shows it.
type Entry struct {
	Command string
	Process dialog.BackgroundProcess
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
	// starting counts the places Reserve holds for processes being
	// started: they count as running, so that calls started at once
	// cannot together pass MaxHistory.
	starting int
	closed   bool
}

// Reserve holds a place for one process, before it is started: nothing
// is started that the registry would refuse. It refuses once the
// registry is closed, and while MaxHistory processes run or are being
// started. The place is the Reservation's until it Keeps a process or is
// Released.
func (r *Registry) Reserve() (*Reservation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, ErrClosed
	case r.running()+r.starting >= MaxHistory:
		return nil, fmt.Errorf("%d background commands are running in this session, as many as it keeps; one must end before another can start", MaxHistory)
	}
	r.starting++
	return &Reservation{r: r}, nil
}

// Running counts the processes kept that still run.
func (r *Registry) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running()
}

// running counts the processes kept that still run; r.mu is held.
func (r *Registry) running() int {
	n := 0
	for _, e := range r.entries {
		if e.Running() {
			n++
		}
	}
	return n
}

// Reservation is a place Reserve holds for one process.
type Reservation struct {
	r    *Registry
	done bool // kept or released: the place is no longer held
}

// Keep keeps p, started for command, in the reserved place, forgetting
// the oldest process that ended when MaxHistory are kept. It refuses,
// killing p, once the registry is closed.
func (s *Reservation) Keep(command string, p dialog.BackgroundProcess) error {
	r := s.r
	r.mu.Lock()
	defer r.mu.Unlock()
	s.give()
	if r.closed {
		_ = p.Kill() // The session is gone: p has no owner.
		return ErrClosed
	}
	// Reserve counted this place as running, so at most MaxHistory-1 of
	// those kept run: one that ended can be forgotten.
	if len(r.entries) >= MaxHistory {
		r.forgetOldestEnded()
	}
	r.entries = append(r.entries, Entry{Command: command, Process: p})
	return nil
}

// Release gives the place up: the process was not started, or is not
// kept. Once it was kept or released, it does nothing.
func (s *Reservation) Release() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.give()
}

// give stops holding the place; the registry's mu is held.
func (s *Reservation) give() {
	if !s.done {
		s.done = true
		s.r.starting--
	}
}

// forgetOldestEnded drops the oldest entry whose process ended; r.mu is
// held.
func (r *Registry) forgetOldestEnded() {
	for i, e := range r.entries {
		if !e.Running() {
			r.entries = append(r.entries[:i], r.entries[i+1:]...)
			return
		}
	}
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

// Close kills every process still running and refuses any later (one
// reserved before is killed as it is kept). It returns the errors of the
// kills that failed; closing again does nothing.
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
