package agent

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// CheckpointRequest is what a checkpoint keeps of the moment before an
// edit lands: the session's history (which ends with the model's call)
// and the call.
type CheckpointRequest struct {
	SessionID string
	History   []*genai.Content
	Tool      string
	Args      map[string]any
}

// Checkpointer takes a checkpoint before each edit lands (settings'
// general.checkpointing.enabled), as Gemini CLI's checkpointing does: a
// snapshot of the workspace and the conversation, which /restore goes
// back to. Its error is told the user, and the edit goes on.
type Checkpointer interface {
	Checkpoint(ctx context.Context, req CheckpointRequest) error
}

// checkpoint has the Checkpointer, if any, take a checkpoint before fc's
// change lands; a failure is a notice, not the call's failure.
func (t *turn) checkpoint(fc *genai.FunctionCall) {
	cp := t.s.agent.cfg.Checkpointer
	if cp == nil {
		return
	}
	err := cp.Checkpoint(t.ctx, CheckpointRequest{SessionID: t.s.id, History: slices.Clone(t.s.chat.history), Tool: fc.Name, Args: fc.Args})
	if err != nil && t.ctx.Err() == nil {
		t.emit(dialog.NoticeEvent{Text: fmt.Sprintf("Checkpointing before %s failed, so /restore cannot undo it: %v", fc.Name, err), Aside: true})
	}
}
