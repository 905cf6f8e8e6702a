package conversation

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// View is one turn's port, made by its front end for that turn and
// handed the host with the turn's prompt (Host.Prompt, Claim.Prompt):
// the turn's events reach its Show, each with the subagent it is of,
// and the questions the turn asks (the agent's, through the session's
// approval door, the commands', and the folder trust question) reach
// its other methods, never another turn's. A front end shows an event
// by switching on dialog's kinds (TestSwitchesOverClosedSetsAreExhaustive
// holds the switch to every kind).
type View interface {
	dialog.Port
	// AskTrust asks whether to trust a folder (trust.go).
	dialog.TrustAsker
}

// ReplayView shows a saved turn again (Exchange.Show): its text
// (dialog.TextEvent), and each call (dialog.ToolCallEvent) followed by
// how it ended (dialog.ToolResultEvent), all the main agent's. Nothing
// else of a turn is saved. A View's Show is one.
type ReplayView interface {
	Show(ctx context.Context, from dialog.Subagent, ev dialog.Event)
}
