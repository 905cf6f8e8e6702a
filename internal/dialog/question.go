package dialog

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// ConfirmOutcome is the user's answer to a permission request.
type ConfirmOutcome string

const (
	ProceedOnce   ConfirmOutcome = "proceed_once"
	ProceedAlways ConfirmOutcome = "proceed_always"
	// ProceedAlwaysAndSave is ProceedAlways for all future sessions too:
	// saved as a policy rule (security.enablePermanentToolApproval). Only
	// where the request offers it (ConfirmRequest.Permanent).
	ProceedAlwaysAndSave ConfirmOutcome = "proceed_always_and_save"
	// ProceedAlwaysPrefix is ProceedAlways scoped to the shell command's
	// prefixes (ConfirmRequest.AlwaysPrefixes: go test, not every go
	// command), for the session. Only where the request offers it.
	ProceedAlwaysPrefix ConfirmOutcome = "proceed_always_prefix"
	Cancel              ConfirmOutcome = "cancel"
)

// Allows reports whether the answer lets the call run.
func (o ConfirmOutcome) Allows() bool {
	return o == ProceedOnce || o == ProceedAlways || o == ProceedAlwaysAndSave || o == ProceedAlwaysPrefix
}

// ConfirmRequest asks the user to approve a call that is not an edit
// (shell, web fetch, MCP tools).
//
// The json tags are its names in LSP's gemini/confirm (docs/protocol.md
// 9), whose params embed it; a field tagged "-" is not sent.
type ConfirmRequest struct {
	SessionID string `json:"sessionId"`
	CallID    string `json:"callId,omitempty"` // none for a switch of model
	// Tool is the tool the call is of, for a front end that cannot ask
	// to name in its refusal; "" when the question is not about a call
	// (a switch of model, a rewind's conflict).
	Tool    string      `json:"-"`
	Kind    ConfirmKind `json:"kind"`
	Title   string      `json:"title"`
	Details string      `json:"details"`
	// Subject is what the question is about in one line, for a front
	// end that shows a title alone (a shell command, the URLs fetched);
	// "" when the call's title says it.
	Subject string `json:"-"`
	// CanAllowAlways says that ProceedAlways would hold: calls like this
	// one would run without asking for the rest of the session. The front
	// end offers "always allow" only then; without it, ProceedAlways
	// allows this call once, as ProceedOnce does.
	CanAllowAlways bool `json:"canAllowAlways"`
	// Permanent, when not "", offers ProceedAlwaysAndSave under this
	// label, Gemini CLI 0.61's ("Allow this command for all future
	// sessions"); only with CanAllowAlways. SaveByDefault says it is the
	// suggested answer (security.autoAddToPolicyByDefault).
	Permanent     string `json:"permanent,omitempty"`
	SaveByDefault bool   `json:"saveByDefault,omitempty"`
	// AlwaysCommands are what ProceedAlways allows of a shell line: the
	// names of the commands it runs (go, grep), each then allowed with
	// any arguments; only with CanAllowAlways.
	AlwaysCommands []string `json:"alwaysCommands,omitempty"`
	// AlwaysPrefixes, when some, offer ProceedAlwaysPrefix: the
	// narrower "always allow" of the lines that start with one of these
	// prefixes (go test), each command of such a line still judged (a
	// prefix never allows go test; rm -rf x); only with CanAllowAlways,
	// and only where a prefix is narrower than the command's name.
	AlwaysPrefixes []string `json:"alwaysPrefixes,omitempty"`
	// Dir is the directory a shell command runs in, absolute.
	Dir string `json:"dir,omitempty"`
}

// Confirmer asks the user. Each front end has one; it may return Cancel with
// a reason when there is nobody to ask.
type Confirmer interface {
	Confirm(ctx context.Context, req ConfirmRequest) (ConfirmOutcome, error)
}

// AskRequest is a call's question to the user.
type AskRequest struct {
	SessionID string
	CallID    string
	Question  Question
}

// Asker puts calls' questions to the user (ask_user, plan approval). Each
// front end that can ask has one; an error wrapping ErrCannotAsk says,
// for the model, that nobody can answer.
type Asker interface {
	Ask(ctx context.Context, req AskRequest) (Answer, error)
}

// LandRequest hands a front end an edit call's change to land.
type LandRequest struct {
	SessionID string
	CallID    string
	Change    workspace.FileChange
	// Ask says the session's approval service did not allow the change:
	// the front end presents the question, with the change, and lands it
	// only if the user allows it. Without Ask the change is allowed.
	Ask bool
	// CanAllowAlways says an "always allow edits" answer would hold, for
	// the front end to offer it only then (as ConfirmRequest's).
	CanAllowAlways bool
}

// Landing is what became of a change a front end was asked to land.
type Landing struct {
	Decision
	// AllowAlways says the user, asked, allowed edits for the rest of the
	// session; the agent's approval service records it.
	AllowAlways bool
}

// ChangeLander presents edits and lands those allowed. Each front end has
// one; it never decides what is allowed (LandRequest.Ask says).
type ChangeLander interface {
	Land(ctx context.Context, req LandRequest) (Landing, error)
}

// RevertChange is one file of a revert: its FileChange takes the file
// from what it holds now (Before; Exists) back to After, unless Remove
// says the agent created it, and the revert deletes it.
type RevertChange struct {
	workspace.FileChange
	Remove bool
}

// LandFilesRequest hands a front end changes of several files to land
// as one, previewed and confirmed once: a revert, or an edit call's
// change across files (rename_symbol's).
type LandFilesRequest struct {
	SessionID string
	// Title says what the change is, for the question and the preview.
	Title   string
	Changes []RevertChange
	// CallID, set, says the changes are that edit call's, not a revert:
	// the front end asks the user only where Ask says so, as Land does,
	// and refuses them (dialog.Refused) where it must ask and nobody can
	// answer. A revert's CallID is "": the user asked for it.
	CallID string
	Ask    bool
	// Landing says the changes are an agent's work, brought from its
	// worktree into the user's tree at the user's request: asked about
	// as the user's own request is (a revert's way), in its own words.
	Landing bool
}

// FilesLander is a ChangeLander that lands several changes as one (a
// rewind's revert of the agent's changes, a rename across files): it
// presents them all, asks the user once, lands what was allowed and
// reports each change's outcome, in order. The user asked for a revert,
// so a front end with nobody to ask (headless) lands it; an edit call's
// changes it asks about only when the request's Ask says so.
type FilesLander interface {
	LandFiles(ctx context.Context, req LandFilesRequest) ([]Decision, error)
}
