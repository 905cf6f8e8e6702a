package dialog

import "context"

// Port is the user of one turn as its front end reaches them: it shows
// the turn's events and puts the turn's questions. A front end makes one
// for each call that starts a turn (the agent session's Prompt, Rewind,
// RestoreFiles, RunCall, AllowShell) and hands it with that call, as the
// MCP Go SDK hands a tool handler the session of its request
// (req.Session.Elicit): whatever the turn shows or asks reaches this
// port, and no other turn's.
//
// It never decides what is allowed: each request says whether to ask.
// A front end that cannot ask answers with an error wrapping
// ErrCannotAsk (Confirm, Ask), refuses what must be asked (Land,
// LandFiles: Refused), and lands what need not be.
type Port interface {
	// Show shows ev, in the order the turn emits them, one at a time.
	// from is the subagent run ev is of, for a front end to show it
	// nested under the subagent's invoke_agent call; zero for the main
	// agent's own.
	Show(ctx context.Context, from Subagent, ev Event)
	// Land presents an edit call's change and lands it if allowed.
	ChangeLander
	// LandFiles lands a rewind's or a restore's changes as one, or an
	// edit call's across files (a rename).
	FilesLander
	// Confirm asks the user about a call, a switch of model or a
	// rewind's conflict.
	Confirmer
	// Ask puts a call's question (ask_user, plan approval) to the user.
	Asker
}
