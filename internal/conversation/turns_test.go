package conversation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A session runs one prompt at a time: a second is refused as busy while
// the first runs, and taken once it ended.
func TestTurnsRefuseABusySession(t *testing.T) {
	var ts Turns
	first, err := ts.Begin(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Begin(context.Background(), "s"); !errors.Is(err, dialog.ErrBusy) {
		t.Fatalf("second prompt: %v, want busy", err)
	}
	other, err := ts.Begin(context.Background(), "other")
	if err != nil {
		t.Fatalf("another session: %v", err)
	}
	other.End()
	first.End()
	first.End() // a second End does nothing
	again, err := ts.Begin(context.Background(), "s")
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	first.End() // the old turn's End leaves the new one be
	if _, err := ts.Begin(context.Background(), "s"); !errors.Is(err, dialog.ErrBusy) {
		t.Fatalf("an old turn's End freed the session of the new one: %v", err)
	}
	again.End()
}

// A prompt sent after cancelling the running one (ACP's clients do it in
// one step) waits for it to end rather than being refused.
func TestTurnsWaitForACancelledPrompt(t *testing.T) {
	var ts Turns
	first, err := ts.Begin(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if !ts.Cancel("s") {
		t.Fatal("Cancel found no running prompt")
	}
	if first.Context().Err() == nil {
		t.Fatal("the cancelled turn's context is not done")
	}
	began := make(chan *Turn)
	go func() {
		next, err := ts.Begin(context.Background(), "s")
		if err != nil {
			t.Error(err)
		}
		began <- next
	}()
	select {
	case <-began:
		t.Fatal("the next prompt began before the cancelled one ended")
	case <-time.After(50 * time.Millisecond):
	}
	first.End()
	next := <-began
	if next == nil || next.Context().Err() != nil {
		t.Fatal("the next prompt has no live turn")
	}
	next.End()

	// Waiting ends with the waiter's own context too.
	held, _ := ts.Begin(context.Background(), "s")
	held.Cancel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ts.Begin(ctx, "s"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled waiter: %v", err)
	}
	held.End()
}

// CancelAll stops every running prompt; Stop waits for the one it stops.
func TestTurnsCancelAllAndStop(t *testing.T) {
	var ts Turns
	a, _ := ts.Begin(context.Background(), "a")
	b, _ := ts.Begin(context.Background(), "b")
	if n := ts.CancelAll(); n != 2 || a.Context().Err() == nil || b.Context().Err() == nil {
		t.Fatalf("CancelAll: %d, contexts %v %v", n, a.Context().Err(), b.Context().Err())
	}
	a.End()
	stopped := make(chan struct{})
	go func() {
		ts.Stop(context.Background(), "b")
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned before the turn ended")
	case <-time.After(50 * time.Millisecond):
	}
	b.End()
	<-stopped
	if ts.Cancel("a") || ts.Cancel("b") {
		t.Fatal("ended turns are still running")
	}
	ts.Stop(context.Background(), "none") // nothing to wait for
}
