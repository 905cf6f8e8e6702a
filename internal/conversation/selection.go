package conversation

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// EditSelection has b's model rewrite a selection as req's instruction
// says and lands the rewrite through lander, asking the user where the
// approval door says to; no session takes part.
func (h *Host[S]) EditSelection(ctx context.Context, b *Build, req dialog.SelectionEdit, lander dialog.ChangeLander) (dialog.SelectionEdited, error) {
	built := b.hold()
	defer b.release(built)
	return built.Agent.EditSelection(ctx, req, lander)
}

// Answer has b's agent stream one model answer to req's conversation, a
// client's own (VS Code's language model API): no session, no tools,
// nothing recorded. onText hears each piece of the text as it comes.
func (h *Host[S]) Answer(ctx context.Context, b *Build, req dialog.AnswerRequest, onText func(string)) (dialog.Answered, error) {
	built := b.hold()
	defer b.release(built)
	return built.Agent.Answer(ctx, req, onText)
}
