package tools

import (
	"context"
	"errors"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// ConfirmFunc asks the user to approve req, for the call; the front
// end's error when nobody can be asked.
type ConfirmFunc func(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error)

// serverAsk is how the code-intelligence tools ask the user before the
// door starts a language server that may run the workspace's code: the
// call's Confirm, as an execute question of its own; nil where nobody
// can be asked.
func serverAsk(info CallInfo) spawn.Ask {
	if info.Confirm == nil {
		return nil
	}
	return func(ctx context.Context, q spawn.Question) (bool, error) {
		outcome, err := info.Confirm(ctx, dialog.ConfirmRequest{
			CallID:  info.CallID,
			Kind:    dialog.ConfirmExecute,
			Title:   q.Title,
			Details: q.Details,
			Subject: q.Title,
		})
		switch {
		case errors.Is(err, dialog.ErrCannotAsk):
			return false, spawn.ErrNobodyToAsk
		case err != nil:
			return false, err
		}
		return outcome.Allows(), nil
	}
}
