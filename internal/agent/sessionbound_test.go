package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The bound on sessions in memory drops none in use: one running a
// prompt, one a front end pinned for a prompt on its way, one new and
// not prompted yet. It drops the least recently used idle session that
// is saved, which is read back when named again.
func TestSessionsInUseOutliveTheBound(t *testing.T) {
	turns := []geminitest.Turn{geminitest.TextTurn("saved"), geminitest.TextTurn("pinned"), {Chunks: []geminitest.Chunk{{Text: "thinking"}}, Hang: true}}
	for range dialog.MaxLiveSessions + 2 {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Store: newStore(t)})

	saved := a.NewSession()
	prompt(t, saved, "saved")
	pinned := a.NewSession()
	prompt(t, pinned, "pinned")
	unpin, err := pinned.Pin()
	if err != nil {
		t.Fatal(err)
	}
	running, stop := startHangingPrompt(t, a)
	defer stop()
	fresh := a.NewSession()
	for range dialog.MaxLiveSessions {
		prompt(t, a.NewSession(), "more")
	}

	live := liveIDs(a)
	for name, s := range map[string]*agent.Session{"pinned": pinned, "running": running, "new": fresh} {
		if !live[s.ID()] {
			t.Errorf("the %s session was dropped from memory", name)
		}
	}
	if live[saved.ID()] {
		t.Error("the least recently used idle saved session is still in memory")
	}

	unpin()
	prompt(t, a.NewSession(), "one more")
	if liveIDs(a)[pinned.ID()] {
		t.Error("the session unpinned, idle and saved, stayed in memory past the bound")
	}

	back, err := a.Session(context.Background(), saved.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, tr, err := a.Transcript(context.Background(), back.ID()); err != nil || len(tr) != 1 || tr[0].Answer != "saved" {
		t.Errorf("the session read back: %+v, %v", tr, err)
	}
}

// Without a store, a session dropped from memory ends: only idle ones
// that were prompted are, never a new one a prompt is on its way to.
func TestUnsavedSessionsInUseOutliveTheBound(t *testing.T) {
	var turns []geminitest.Turn
	for range dialog.MaxLiveSessions + 1 {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{})
	idle := a.NewSession()
	prompt(t, idle, "first")
	fresh := a.NewSession()
	for range dialog.MaxLiveSessions {
		prompt(t, a.NewSession(), "more")
	}
	if !liveIDs(a)[fresh.ID()] {
		t.Error("the new session, not prompted yet, was dropped from memory")
	}
	var unknown *dialog.UnknownSessionError
	if _, err := a.Session(context.Background(), idle.ID()); !errors.As(err, &unknown) || !unknown.Dropped {
		t.Errorf("naming the idle session dropped: %v, want it closed to bound memory", err)
	}
}

// Without a store, the ids of the sessions dropped are remembered up to a
// bound, the oldest forgotten first: a client going through sessions
// without end does not grow the memory without end. Naming one
// forgotten is still an unknown session, one that no longer says it
// was dropped.
func TestUnsavedSessionsDroppedAreRememberedBounded(t *testing.T) {
	const dropped = 3
	var turns []geminitest.Turn
	for range dialog.MaxLiveSessions + dropped {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{})
	agent.LimitClosed(a, dropped-1)
	var sessions []*agent.Session
	for range dialog.MaxLiveSessions + dropped {
		s := a.NewSession()
		prompt(t, s, "more")
		sessions = append(sessions, s)
	}
	for i, s := range sessions[:dropped] {
		var unknown *dialog.UnknownSessionError
		_, err := a.Session(context.Background(), s.ID())
		if !errors.As(err, &unknown) {
			t.Fatalf("naming dropped session %d: %v, want an unknown session", i, err)
		}
		if remembered := i > 0; unknown.Dropped != remembered {
			t.Errorf("naming dropped session %d: says dropped %v, want %v (%d remembered, the oldest forgotten)", i, unknown.Dropped, remembered, dropped-1)
		}
	}
}

// A session whose changes could not be saved stays in memory past the
// bound: dropped, it would be lost.
func TestSessionNotSavedOutlivesTheBound(t *testing.T) {
	var turns []geminitest.Turn
	for range dialog.MaxLiveSessions + 1 {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	srv := geminitest.NewTestServer(t, turns...)
	// A file where the store's directory should be: every save fails.
	notDir := filepath.Join(t.TempDir(), "sessions")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := sessionstore.New(notDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	unsaved := a.NewSession()
	if _, evs := prompt(t, unsaved, "first"); !slices.ContainsFunc(evs, isNotice) {
		t.Fatal("the session was saved: the test's store should fail")
	}
	for range dialog.MaxLiveSessions {
		prompt(t, a.NewSession(), "more")
	}
	if !liveIDs(a)[unsaved.ID()] {
		t.Error("the idle session that could not be saved was dropped from memory")
	}
}

func isNotice(e dialog.Event) bool {
	_, ok := e.(dialog.NoticeEvent)
	return ok
}

// startHangingPrompt runs a prompt in a new session of a until stop,
// and returns once the model is answering it.
func startHangingPrompt(t *testing.T, a *agent.Agent) (*agent.Session, func()) {
	t.Helper()
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	answering, done := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(done)
		_, _ = s.Prompt(ctx, dialog.Input{Text: "hang"}, front{}.port(func(e dialog.Event) {
			if _, ok := e.(dialog.TextEvent); ok {
				select {
				case answering <- struct{}{}:
				default:
				}
			}
		}))
	}()
	select {
	case <-answering:
	case <-done:
		t.Fatal("the hanging prompt ended")
	}
	return s, func() { cancel(); <-done }
}

func liveIDs(a *agent.Agent) map[string]bool {
	ids := map[string]bool{}
	for _, i := range a.LiveSessions() {
		ids[i.ID] = true
	}
	return ids
}

// Idle sessions whose every change is saved leave memory beyond the few
// most recently used, so memory comes back to its baseline as an editor
// moves on to new sessions; one gone is read back when named.
func TestIdleSavedSessionsBeyondAFewLeaveMemory(t *testing.T) {
	const sessions = dialog.MaxIdleSavedSessions + 3
	var turns []geminitest.Turn
	for range sessions + 1 {
		turns = append(turns, geminitest.TextTurn("ok"))
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Store: newStore(t)})
	var ids []string
	for range sessions {
		s := a.NewSession()
		prompt(t, s, "hello")
		ids = append(ids, s.ID())
	}
	// Touching a new session weighs the idle ones against the bound.
	prompt(t, a.NewSession(), "one more")
	live := liveIDs(a)
	kept := 0
	for _, id := range ids {
		if live[id] {
			kept++
		}
	}
	if kept != dialog.MaxIdleSavedSessions {
		t.Errorf("%d idle saved sessions stayed in memory, want %d", kept, dialog.MaxIdleSavedSessions)
	}
	if live[ids[0]] || !live[ids[len(ids)-1]] {
		t.Errorf("the least recently used did not leave first: live %v", live)
	}
	back, err := a.Session(context.Background(), ids[0])
	if err != nil || back.ID() != ids[0] {
		t.Fatalf("the first session, gone from memory, is not read back: %v", err)
	}
}

// clock is a test's time, moved on when the test says.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sessions opened and never prompted ("new conversation" pressed again
// and again) stay in memory for a minute, as a prompt may be on their
// way; past it, beyond the bound, they leave memory and come back new
// when named, in the same root and in the mode they had, and can be
// prompted. One whose own mode the agent's has replaced since comes back
// in the agent's, as the sessions in memory do.
func TestBlankSessionsLeaveMemoryAndComeBack(t *testing.T) {
	for _, store := range []bool{true, false} {
		t.Run(fmt.Sprintf("saved %v", store), func(t *testing.T) {
			a, c := clockedAgent(t, store)
			planned := a.NewSession()
			planned.SetApprovalMode(dialog.ApprovalPlan)
			editing := a.NewSession()
			editing.SetApprovalMode(dialog.ApprovalAutoEdit)
			var blanks []*agent.Session
			for range 2 * dialog.MaxLiveSessions {
				blanks = append(blanks, a.NewSession())
			}
			if n, want := len(a.LiveSessions()), 2*dialog.MaxLiveSessions+2; n != want {
				t.Errorf("%d sessions in memory within their first minute, want all %d", n, want)
			}

			c.advance(time.Minute)
			a.NewSession()
			live := liveIDs(a)
			if n, most := len(live), dialog.MaxLiveSessions; n > most {
				t.Errorf("%d sessions in memory past the minute, want at most %d", n, most)
			}
			if live[planned.ID()] || live[editing.ID()] || live[blanks[0].ID()] {
				t.Fatal("the first sessions opened are still in memory")
			}
			backInPlanMode(t, a, planned.ID())
			back, err := a.Session(context.Background(), blanks[0].ID())
			if err != nil || back.ID() != blanks[0].ID() || back.ApprovalMode() != a.ApprovalMode() {
				t.Fatalf("the blank session named again: %v, %v", back, err)
			}
			if res, _ := prompt(t, back, "hello"); res.StopReason != dialog.StopEndTurn {
				t.Errorf("its prompt: %+v", res)
			}

			a.SetApprovalMode(dialog.ApprovalYolo)
			back, err = a.Session(context.Background(), editing.ID())
			if err != nil {
				t.Fatal(err)
			}
			if m := back.ApprovalMode(); m != dialog.ApprovalYolo {
				t.Errorf("the session in auto-edit, named after the agent's mode was set to yolo, is in %s", m)
			}
		})
	}
}

// backInPlanMode is the session id names, dropped from memory in plan
// mode, named again: in plan mode still.
func backInPlanMode(t *testing.T, a *agent.Agent, id string) *agent.Session {
	t.Helper()
	back, err := a.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m := back.ApprovalMode(); m != dialog.ApprovalPlan {
		t.Errorf("the session in plan mode named again is in %s", m)
	}
	return back
}

// clockedAgent is an agent on a clock the test advances, its sessions
// saved when store, its model answering one prompt.
func clockedAgent(t *testing.T, store bool) (*agent.Agent, *clock) {
	t.Helper()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	cfg := agent.Config{}
	if store {
		cfg.Store = newStore(t)
	}
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	cfg.Now = c.Now
	a, _ := newAgent(t, srv, cfg)
	return a, c
}

// Sessions opened faster than they leave memory after their first
// minute (a client opening them in a loop) are bounded too: beyond
// dialog.MaxBlankSessions blank ones, the least recently used leaves
// memory at once, and comes back in its mode when named. A pinned one stays: a
// prompt is on its way to it.
func TestBlankSessionsOpenedInALoopAreBounded(t *testing.T) {
	for _, store := range []bool{true, false} {
		t.Run(fmt.Sprintf("saved %v", store), func(t *testing.T) {
			a, _ := clockedAgent(t, store)
			pinned := a.NewSession()
			unpin, err := pinned.Pin()
			if err != nil {
				t.Fatal(err)
			}
			defer unpin()
			planned := a.NewSession()
			planned.SetApprovalMode(dialog.ApprovalPlan)
			for range 2 * dialog.MaxBlankSessions {
				a.NewSession()
			}
			live := liveIDs(a)
			if n, most := len(live), dialog.MaxBlankSessions+1; n > most {
				t.Errorf("%d sessions in memory within their first minute, want at most %d", n, most)
			}
			if !live[pinned.ID()] {
				t.Error("the pinned session left memory")
			}
			if live[planned.ID()] {
				t.Fatal("the least recently used blank session is still in memory")
			}
			back := backInPlanMode(t, a, planned.ID())
			if res, _ := prompt(t, back, "hello"); res.StopReason != dialog.StopEndTurn {
				t.Errorf("its prompt: %+v", res)
			}
		})
	}
}

// The blank sessions that come back when named are bounded: beyond
// MaxBlanks, the oldest is forgotten, and naming it says so.
func TestBlankSessionsRememberedAreBounded(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	a, _ := newAgent(t, srv, agent.Config{Now: c.Now})
	first := a.NewSession()
	for range agent.MaxBlanks + dialog.MaxLiveSessions + 1 {
		c.advance(time.Minute)
		a.NewSession()
	}
	var unknown *dialog.UnknownSessionError
	if _, err := a.Session(context.Background(), first.ID()); !errors.As(err, &unknown) {
		t.Errorf("naming the blank session forgotten: %v, want an unknown session", err)
	}
	if n := len(a.LiveSessions()); n > dialog.MaxLiveSessions {
		t.Errorf("%d sessions in memory", n)
	}
}
