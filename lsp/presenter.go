package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/conversation"
	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/tools"
)

// presenter is the server's one door to its user, its conversation
// host's Presenter: Emit shows a turn's events the way the request that
// started the turn shows them (gemini/update for gemini/prompt, $/progress
// and the transcript for gemini.prompt); Land (edits.go), LandFiles
// (revert.go), Confirm (confirm.go) and Ask (ask.go) put the agent's
// questions in the ways the client can answer.
type presenter struct{ s *Server }

// host is the conversation host of an LSP connection: the one build is
// shared by every session, which lives as long as the connection.
type host = conversation.Host[struct{}]

// shownKey is the context key of how the running turn shows its events.
type shownKey struct{}

// showingWith is ctx for a turn whose events show runs: the claim's
// context derives from it, and Emit reads it back.
func showingWith(ctx context.Context, show func(dialog.Event)) context.Context {
	return context.WithValue(ctx, shownKey{}, show)
}

// Emit shows e the way its turn's request does and, before
// exit_plan_mode asks for approval, opens the plan in the editor
// (window/showDocument) where the client can, so the user reads what
// they approve.
func (p presenter) Emit(ctx context.Context, _ *conversation.Live[struct{}], e dialog.Event) {
	if show, ok := ctx.Value(shownKey{}).(func(dialog.Event)); ok {
		show(e)
	}
	s := p.s
	if e.Kind != dialog.EventToolCall || e.ToolCall.Name != tools.ExitPlanModeName || e.ToolCall.Path == "" || !s.features.get().ShowDocument {
		return
	}
	var res protocol.ShowDocumentResult
	if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.File(e.ToolCall.Path), TakeFocus: new(true)}, &res); err != nil {
		s.log.Info("window/showDocument of a plan", zap.Error(err))
	}
}
