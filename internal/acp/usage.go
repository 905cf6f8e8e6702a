package acp

// usage_update: how full the model's context window is, after each of
// the model's answers.

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// usage sends usage_update after each answer of the main agent's model:
// used is the tokens the request put in the window (its prompt, as the
// model counted it), size the window of the model that answered. No cost:
// gemini-ls knows no prices, and the schema makes cost optional. The
// prompt's tokens in all are its answer's (PromptResponse.Usage). A
// subagent's answers fill a window of their own, not the session's.
func (t *turn) usage(ctx context.Context, from dialog.Subagent, u dialog.UsageReport) {
	if from.CallID != "" {
		return
	}
	t.sess.showFill(ctx, u.Context)
}

// showFill sends usage_update with how full the window is (fill), when
// the window's size is known: after an answer, or as a saved session is
// loaded.
func (sess *session) showFill(ctx context.Context, fill dialog.ContextFill) {
	if fill.Size <= 0 {
		return
	}
	sess.update(ctx, sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Used: int(max(fill.Used, 0)), Size: int(fill.Size)}})
}
