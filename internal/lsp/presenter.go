package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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

// updates shows a turn's events as gemini/update notifications, one of
// each event's kind (and a saved turn's as its exchange's updates): send
// sends one. ws names the files of tool calls (nil: as given).
type updates struct {
	sessionID string
	send      func(update)
	ws        *workspace.Workspace
}

// Show sends ev as the gemini/update of its kind (a saved turn's too,
// as its exchange's updates), from a subagent or the main agent, with
// its header.
func (u updates) Show(_ context.Context, from dialog.Subagent, ev dialog.Event) {
	up := updateOf(ev, u.ws)
	*up.head() = updateHead{SessionID: u.sessionID, UpdateKind: up.kind(), ParentCallID: from.CallID, AgentName: from.Name}
	u.send(up)
}

// updateOf is the gemini/update of ev's kind, its header not yet set.
// ws names a tool call's file (nil: as given).
func updateOf(ev dialog.Event, ws *workspace.Workspace) update {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		return &textUpdate{Text: ev.Text}
	case dialog.ThoughtEvent:
		return &thoughtUpdate{Thought: ev.Thought}
	case dialog.ToolCallEvent:
		return toolCallUpdateOf(ev.Call, ws)
	case dialog.ToolResultEvent:
		return toolResultUpdateOf(ev.Result, ws)
	case dialog.UsageEvent:
		return usageUpdateOf(ev.Usage)
	case dialog.ErrorEvent:
		up := &errorUpdate{}
		if ev.Err != nil {
			up.Message = ev.Err.Error()
			up.ErrorKind = errorKind(conversation.ErrorKind(ev.Err))
		}
		return up
	case dialog.RetryEvent:
		return retryUpdateOf(ev.Retry)
	case dialog.CompressedEvent:
		return &compressedUpdate{CompressionInfo: ev.Compression}
	case dialog.NoticeEvent:
		return &noticeUpdate{Message: ev.Text}
	case dialog.ModeEvent:
		return &modeUpdate{Mode: string(ev.Mode)}
	case dialog.ModelEvent:
		return chosenModel(ev.Model)
	case dialog.TopicEvent:
		return topicUpdateOf(ev.Topic)
	case dialog.PlanEvent:
		return &planUpdate{Todos: ev.Todos}
	case dialog.CommandsEvent:
		return &commandsUpdate{}
	}
	// dialog.Event is sealed and the switch whole
	// (TestSwitchesOverClosedSetsAreExhaustive).
	panic(fmt.Sprintf("lsp: no gemini/update for a %T", ev))
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
