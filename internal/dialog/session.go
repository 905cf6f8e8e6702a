package dialog

import (
	"errors"
	"fmt"
	"time"
)

// SessionInfo is what a session list shows of a session.
type SessionInfo struct {
	ID        string
	Title     string // the first line of the first prompt, shortened
	Root      string // the workspace root it ran in
	CreatedAt time.Time
	UpdatedAt time.Time
	Prompts   int
	Usage     Usage // summed over the session
	// Context is how full the model's window was at the session's last
	// answer, kept with it on disk; zero before one (and in a session
	// saved before it was kept, until it answers again).
	Context ContextFill
	// Live reports whether the session is in memory now (else it is on
	// disk, and resuming it reads it back).
	Live bool
}

// BusyError refuses a prompt to a session that is running one, in the
// one wording every front end answers with.
type BusyError struct {
	SessionID string
	// Cancel is how the front end's user cancels the running prompt
	// ("session/cancel"); "" names no way.
	Cancel string
}

func (e *BusyError) Error() string {
	how := ""
	if e.Cancel != "" {
		how = " with " + e.Cancel
	}
	return fmt.Sprintf("Gemini is still answering the previous prompt of this conversation (session %s is already running a prompt): wait for it, or cancel it%s", e.SessionID, how)
}

// UnknownSessionError is a session id that names no session.
type UnknownSessionError struct {
	SessionID string
	// Dropped is set when the session existed but was dropped from memory
	// to bound it, and sessions do not persist.
	Dropped bool
}

func (e *UnknownSessionError) Error() string {
	if e.Dropped {
		return fmt.Sprintf("session %q was closed to bound memory: gemini-ls keeps the %d most recently used sessions; start a new session", e.SessionID, MaxLiveSessions)
	}
	return fmt.Sprintf("unknown session %q", e.SessionID)
}

// ErrBusy matches a *BusyError with errors.Is.
var ErrBusy = errors.New("session busy")

// ErrSessionExists is the refusal of a new session's id that a session,
// live or saved, has already (Gemini CLI's --session-id).
var ErrSessionExists = errors.New("session already exists")

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// MaxLiveSessions is how many sessions an agent keeps in memory. A session
// holds its whole history (every file read, every command's output), and
// an editor may stay open for days: beyond this, the least recently used
// idle session is dropped from memory (and resumed from disk when asked
// for again, if sessions persist). A session in use (running, claimed for
// a prompt, or new and not prompted yet), or with changes not on disk, is
// never dropped: the sessions in memory may outnumber the bound while
// they are.
const MaxLiveSessions = 32

// MaxBlankSessions bounds the sessions opened and never prompted that an
// agent keeps in memory in their first minute, when a prompt may be on
// its way to them (after it, they leave memory under MaxLiveSessions):
// beyond it, the least recently used leaves memory at once, and comes
// back new, in its mode, when named. A front end pins the session it
// opens for a prompt until the prompt claims it, so that no burst of new
// sessions drops it meanwhile.
const MaxBlankSessions = 256

// MaxIdleSavedSessions is how many idle sessions whose every change is on
// disk an agent keeps in memory beside those in use; the others leave it,
// least recently used first, and are read back when named. So an editor
// that moves on to new sessions comes back to the memory it started with
// (docs/benchmarks.md, Stamina), rather than holding 32 histories.
const MaxIdleSavedSessions = 4

// MaxRunningSessions is how many sessions of a front end's run a prompt
// at once; a prompt to another waits for one of them to end, among at
// most MaxWaitingSessions waiting. Sessions in use stay in memory, and
// this bounds them.
const MaxRunningSessions = 32

// MaxWaitingSessions is how many prompts wait for their turn to run
// (MaxRunningSessions); one more is refused with a *FullError.
const MaxWaitingSessions = 256

// FullError refuses a prompt when as many sessions run a prompt as may,
// and as many more wait for their turn, in the one wording every front
// end answers with. It is an ErrBusy: the prompt did not start, and
// sending it again later may.
type FullError struct{}

func (e *FullError) Error() string {
	return fmt.Sprintf("gemini-ls holds at most %d conversations running at once and %d more waiting for their turn, and it holds that many: wait for one to end, or cancel one", MaxRunningSessions, MaxWaitingSessions)
}

func (e *FullError) Is(target error) bool { return target == ErrBusy }
