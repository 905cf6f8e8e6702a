package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// presenter puts a turn's questions (conversation.Questions) in the ways
// the client can answer: Land (edits.go), LandFiles (revert.go), Confirm
// (confirm.go), Ask (ask.go) and AskTrust (trust.go). Every turn of the
// connection asks them alike; how a turn shows its events is the view of
// the request that started it (promptView for gemini/prompt, commandView
// for gemini.prompt).
type presenter struct{ s *Server }

// host is the conversation host of an LSP connection: the one build is
// shared by every session, which lives as long as the connection.
type host = conversation.Host[struct{}]

// promptView is a gemini/prompt turn's: each event is a gemini/update
// notification, and the plan exit_plan_mode presents is opened in the
// editor.
type promptView struct {
	presenter
	updates
}

func (v promptView) ToolCall(ctx context.Context, from dialog.Subagent, c dialog.ToolCall) {
	v.updates.ToolCall(ctx, from, c)
	v.s.showPlan(ctx, c)
}

// showPlan opens, before exit_plan_mode asks for approval, the plan it
// presents in the editor (window/showDocument) where the client can, so
// the user reads what they approve; it reports whether the editor
// showed it.
func (s *Server) showPlan(ctx context.Context, c dialog.ToolCall) bool {
	if !c.PresentsPlan || c.Path == "" || !s.features.get().ShowDocument {
		return false
	}
	var res protocol.ShowDocumentResult
	if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.File(c.Path), TakeFocus: new(true)}, &res); err != nil {
		s.log.Info("window/showDocument of a plan", zap.Error(err))
		return false
	}
	return res.Success
}
