package conversation_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Past dialog.MaxRunningSessions claims, a claim waits for one to end;
// one waiting is cancelled as a prompt is; past
// dialog.MaxWaitingSessions waiting, a claim is refused with an error
// that names both bounds.
func TestHostBoundsTheSessionsRunning(t *testing.T) {
	f, built := hostFor(t, true)
	// Opened for a prompt, as a front end opens a session it claims
	// next: beyond dialog.MaxBlankSessions in memory, one opened
	// otherwise may leave memory before its claim.
	open := func() string {
		l, err := f.host.OpenForPrompt(t.Context(), built, false, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		return l.ID()
	}
	var claims []*conversation.Claim[struct{}]
	for range dialog.MaxRunningSessions {
		c, err := f.host.Begin(t.Context(), open())
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}

	next := open()
	type begin struct {
		c   *conversation.Claim[struct{}]
		err error
	}
	nextBegun := make(chan begin, 1)
	go func() {
		c, err := f.host.Begin(t.Context(), next)
		nextBegun <- begin{c, err}
	}()
	select {
	case b := <-nextBegun:
		t.Fatalf("a claim past the bound did not wait: %v", b.err)
	case <-time.After(50 * time.Millisecond):
	}
	claims[0].End()
	b := <-nextBegun
	if b.err != nil {
		t.Fatalf("the waiting claim, once one ended: %v", b.err)
	}
	claims[0] = b.c

	cancelled := open()
	begun := make(chan error, 1)
	go func() { begun <- beginErr(t, f, cancelled) }()
	waitFor(t, func() bool { return f.host.Cancel(cancelled) })
	if err := <-begun; conversation.NotBegun(t.Context(), err).Ending != conversation.Cancelled {
		t.Errorf("a waiting claim cancelled: %v, want its prompt cancelled", err)
	}

	waiting := make(chan error, dialog.MaxWaitingSessions)
	for range dialog.MaxWaitingSessions {
		id := open()
		go func() {
			// Refused while the test's own claim below held a place:
			// asked again as a front end's prompt is, by the session's id
			// (resumed for it).
			err := beginErr(t, f, id)
			for errors.As(err, new(*dialog.FullError)) {
				time.Sleep(time.Millisecond)
				if _, err = f.host.ResumeForPrompt(t.Context(), built, id, "", false, struct{}{}); err == nil {
					err = beginErr(t, f, id)
				}
			}
			waiting <- err
		}()
	}
	var full error
	waitFor(t, func() bool {
		// Until every place to wait is taken, the claim waits, and its
		// context ends it.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		_, full = f.host.Begin(ctx, open())
		return !errors.Is(full, context.DeadlineExceeded)
	})
	if !errors.As(full, new(*dialog.FullError)) || !errors.Is(full, dialog.ErrBusy) ||
		full.Error() != "gemini-ls holds at most 32 conversations running at once and 256 more waiting for their turn, and it holds that many: wait for one to end, or cancel one" {
		t.Errorf("a claim past the waiting bound: %v", full)
	}
	for _, c := range claims {
		c.End()
	}
	for range dialog.MaxWaitingSessions {
		if err := <-waiting; !errors.Is(err, errNotFull) {
			t.Errorf("a waiting claim: %v", err)
		}
	}
}

// errNotFull is beginErr's answer for a claim that began (and ended).
var errNotFull = errors.New("begun")

// beginErr claims session id (ending the claim at once): why it could
// not, or errNotFull.
func beginErr(t *testing.T, f *chanFront, id string) error {
	c, err := f.host.Begin(t.Context(), id)
	if err != nil {
		return err
	}
	c.End()
	return errNotFull
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A session a front end opened for a prompt stays in memory until the
// prompt claims it, however many blank sessions open meanwhile (past
// dialog.MaxBlankSessions, the others leave memory).
func TestHostKeepsASessionOpenedForItsPrompt(t *testing.T) {
	f, built := hostFor(t, true, geminitest.TextTurn("ok"))
	l, err := f.host.OpenForPrompt(t.Context(), built, false, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 * dialog.MaxBlankSessions {
		f.host.Open(built, false, struct{}{})
	}
	if o := f.host.Prompt(t.Context(), l.ID(), dialog.Input{Text: "hi"}, f); o.Ending != conversation.Done {
		t.Fatalf("the prompt of the session opened for it: %+v", o)
	}
}

// A session a front end resumed for a prompt stays in memory until the
// prompt claims it, however many sessions start meanwhile.
func TestHostKeepsAResumedSessionForItsPrompt(t *testing.T) {
	turns := []geminitest.Turn{geminitest.TextTurn("saved")}
	for range dialog.MaxLiveSessions + 1 {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	f, built := hostFor(t, true, turns...)
	run := func(id string) {
		t.Helper()
		if o := f.host.Prompt(t.Context(), id, dialog.Input{Text: "hi"}, f); o.Ending != conversation.Done {
			t.Fatalf("prompt: %+v", o)
		}
	}
	first := f.host.Open(built, false, struct{}{}).ID()
	run(first)
	if _, err := f.host.ResumeForPrompt(t.Context(), built, first, "", false, struct{}{}); err != nil {
		t.Fatal(err)
	}
	for range dialog.MaxLiveSessions {
		run(f.host.Open(built, false, struct{}{}).ID())
	}
	c, err := f.host.Begin(t.Context(), first)
	if err != nil {
		t.Fatalf("claiming the session resumed for it: %v", err)
	}
	c.End()
}

// Sessions opened at once in a shared build all stay in the host until
// claimed: one opening does not take another's new session, made after
// it looked at what the agent keeps, for one the agent dropped.
func TestHostKeepsEverySessionOpenedAtOnce(t *testing.T) {
	f, built := hostFor(t, true)
	const rounds, burst = 20, 32
	for range rounds {
		ids := make([]string, burst)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() { ids[i] = f.host.Open(built, false, struct{}{}).ID() })
		}
		wg.Wait()
		for _, id := range ids {
			if _, ok := f.host.Lookup(id); !ok {
				t.Fatalf("session %s, opened with %d others, is not in the host", id, burst-1)
			}
			f.host.Close(id)
		}
	}
}
