package background

import (
	"context"
	"strings"
	"testing"
)

// fakeProcess runs until ended or killed.
type fakeProcess struct {
	pid    int
	done   chan struct{}
	killed bool
}

func newFake(pid int) *fakeProcess { return &fakeProcess{pid: pid, done: make(chan struct{})} }

func (p *fakeProcess) PID() int                                      { return p.pid }
func (p *fakeProcess) Output(context.Context) (string, int64, error) { return "", 0, nil }
func (p *fakeProcess) Done() <-chan struct{}                         { return p.done }
func (p *fakeProcess) Exit() (*int, string)                          { return nil, "" }
func (p *fakeProcess) end()                                          { close(p.done) }
func (p *fakeProcess) Kill() error {
	if !p.killed {
		p.killed = true
		p.end()
	}
	return nil
}

// keep reserves a place in r and keeps p there.
func keep(t *testing.T, r *Registry, p *fakeProcess) {
	t.Helper()
	place, err := r.Reserve()
	if err != nil {
		t.Fatalf("reserving for %d: %v", p.pid, err)
	}
	if err := place.Keep("cmd", p); err != nil {
		t.Fatalf("keeping %d: %v", p.pid, err)
	}
}

// A place held for a process being started counts as one running: the
// bound is refused before anything starts; a place given up, or a
// process that ended, frees one, and the oldest that ended is forgotten.
func TestReserveBoundsRunningAndStarting(t *testing.T) {
	var r Registry
	procs := make([]*fakeProcess, MaxHistory-1)
	for i := range procs {
		procs[i] = newFake(i + 1)
		keep(t, &r, procs[i])
	}
	last, err := r.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reserve(); err == nil || !strings.HasPrefix(err.Error(), "100 background commands are running in this session") {
		t.Fatalf("reserved beyond the bound: %v", err)
	}
	last.Release()
	last.Release() // twice gives up nothing more
	keep(t, &r, newFake(100))
	if _, err := r.Reserve(); err == nil {
		t.Fatal("reserved beyond the bound after a release")
	}

	procs[1].end()
	keep(t, &r, newFake(101))
	if _, ok := r.Get(2); ok {
		t.Error("the process that ended is still kept, beyond the bound")
	}
	if n := len(r.List()); n != MaxHistory {
		t.Errorf("keeps %d, want %d", n, MaxHistory)
	}
}

// A process kept in a place reserved before the registry closed is
// killed; nothing is reserved after.
func TestReserveAfterClose(t *testing.T) {
	var r Registry
	place, err := r.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p := newFake(1)
	if err := place.Keep("cmd", p); err != ErrClosed || !p.killed {
		t.Errorf("kept after close: %v, killed %v", err, p.killed)
	}
	if _, err := r.Reserve(); err != ErrClosed {
		t.Errorf("reserved after close: %v", err)
	}
}
