package conversation

import (
	"context"

	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/setup"
)

// EditSelection has built's model rewrite a selection as req's
// instruction says and lands the rewrite through lander, asking the user
// where the approval door says to; no session takes part.
func (h *Host[S]) EditSelection(ctx context.Context, built *setup.Built, req dialog.SelectionEdit, lander dialog.ChangeLander) (dialog.SelectionEdited, error) {
	return built.Agent.EditSelection(ctx, req, lander)
}
