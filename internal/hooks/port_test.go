package hooks_test

import (
	"context"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// port is a test's dialog.Port, handed with each prompt: it shows every
// event through show and puts confirmations to confirmer; nobody lands
// an edit or answers anything else, nor a confirmation without one.
type port struct {
	show      func(dialog.Event)
	confirmer dialog.Confirmer
}

func (p port) Show(_ context.Context, _ dialog.Subagent, ev dialog.Event) { p.show(ev) }

func (p port) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	if p.confirmer == nil {
		return dialog.Cancel, fmt.Errorf("%w: no one can be asked for approval", dialog.ErrCannotAsk)
	}
	return p.confirmer.Confirm(ctx, req)
}

func (port) Ask(context.Context, dialog.AskRequest) (dialog.Answer, error) {
	return dialog.Answer{}, fmt.Errorf("%w: nobody answers questions here", dialog.ErrCannotAsk)
}

func (port) Land(context.Context, dialog.LandRequest) (dialog.Landing, error) {
	return dialog.Landing{}, fmt.Errorf("no front end lands file changes; the change was not applied")
}

func (port) LandFiles(context.Context, dialog.LandFilesRequest) ([]dialog.Decision, error) {
	return nil, fmt.Errorf("this front end cannot land a revert")
}
