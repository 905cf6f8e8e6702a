package dialog

import (
	"errors"
	"fmt"
)

// FileRevert is what became of one file in a rewind.
type FileRevert struct {
	Path    string
	Outcome RevertOutcome
	// Reason says why it was not reverted.
	Reason string
	// ModeNotSet says why a restored file's executable bit could not be
	// put back (RestoreFiles); "" when it was, or needed none.
	ModeNotSet string
}

// RevertOutcome is the fate of one file of a revert.
type RevertOutcome string

const (
	Reverted RevertOutcome = "reverted"
	// NotReverted: the user declined, the file could not be written, or
	// its change was never journaled; Reason says which.
	NotReverted RevertOutcome = "not_reverted"
	// Conflict: the file changed since the agent last changed it, and
	// the user chose (or nobody could be asked) to keep it.
	Conflict RevertOutcome = "conflict"
	// Unchanged: it already holds what it held before.
	Unchanged RevertOutcome = "unchanged"
)

// RewindMode is what a rewind takes back, as Gemini CLI's /rewind
// offers: the conversation, the agent's file changes, or both.
type RewindMode string

const (
	RewindConversation RewindMode = "conversation"
	RewindCode         RewindMode = "code"
	RewindBoth         RewindMode = "both"
)

// ParseRewindMode is the mode s names, for every front end that takes
// one from the user: "" is RewindBoth, Gemini CLI's first choice, and a
// name of none is an error naming the modes.
func ParseRewindMode(s string) (RewindMode, error) {
	switch m := RewindMode(s); m {
	case "":
		return RewindBoth, nil
	case RewindConversation, RewindCode, RewindBoth:
		return m, nil
	}
	return "", fmt.Errorf("unknown rewind mode %q: conversation, code or both", s)
}

// RewindPoint is one prompt of the conversation, which a rewind can go
// back to before.
type RewindPoint struct {
	// Prompt numbers it from 1, as the transcript orders prompts.
	Prompt int
	Text   string
	// Files are the files the agent changed during it, in the order
	// first changed.
	Files []string
}

// RewindResult is what a rewind did.
type RewindResult struct {
	Prompt int
	Mode   RewindMode
	// Removed is how many prompts left the conversation.
	Removed int
	Files   []FileRevert
	// Notes tell the user what could not be rewound as asked.
	Notes []string
}

// ErrNoSuchPrompt is wrapped by Rewind's error for a prompt number the
// conversation does not have.
var ErrNoSuchPrompt = errors.New("no such prompt")
