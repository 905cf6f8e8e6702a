package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// presenter puts a turn's questions (the questions of its dialog.Port)
// in the ways the client can answer: Land (edits.go), LandFiles
// (revert.go), Confirm (confirm.go), Ask (ask.go) and AskTrust
// (trust.go). Every turn of the connection asks them alike, each request
// naming its session; how a turn shows its events is the port the
// request that started it made for it and handed with it (promptView
// for gemini/prompt, commandView for gemini.prompt, quietPort for
// gemini/rewind).
type presenter struct{ s *Server }

// quietPort is the port of a turn that shows no event (a rewind): it
// puts the turn's questions, and has nothing to show.
type quietPort struct{ presenter }

func (quietPort) Show(context.Context, dialog.Subagent, dialog.Event) {}

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

// Show sends ev as a gemini/update, and opens the plan a call presents.
func (v promptView) Show(ctx context.Context, from dialog.Subagent, ev dialog.Event) {
	v.updates.Show(ctx, from, ev)
	if c, ok := ev.(dialog.ToolCallEvent); ok {
		v.s.showPlan(ctx, c.Call)
	}
}

// Show sends ev as the gemini/update of its kind (a saved turn's too,
// as its exchange's updates).
func (u updates) Show(ctx context.Context, from dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		u.Text(ctx, from, ev.Text)
	case dialog.ThoughtEvent:
		u.Thought(ctx, from, ev.Thought)
	case dialog.ToolCallEvent:
		u.ToolCall(ctx, from, ev.Call)
	case dialog.ToolResultEvent:
		u.ToolResult(ctx, from, ev.Result)
	case dialog.UsageEvent:
		u.Usage(ctx, from, ev.Usage)
	case dialog.ErrorEvent:
		u.Error(ctx, from, ev.Err)
	case dialog.RetryEvent:
		u.Retry(ctx, from, ev.Retry)
	case dialog.CompressedEvent:
		u.Compressed(ctx, from, ev.Compression)
	case dialog.NoticeEvent:
		u.Notice(ctx, from, ev.Text)
	case dialog.ModeEvent:
		u.Mode(ctx, from, ev.Mode)
	case dialog.ModelEvent:
		u.Model(ctx, from, ev.Model)
	case dialog.TopicEvent:
		u.Topic(ctx, from, ev.Topic)
	case dialog.CommandsEvent:
		u.Commands(ctx, from)
	}
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
