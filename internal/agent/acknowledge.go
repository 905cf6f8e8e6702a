package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"go.uber.org/zap"
)

// AgentAcknowledger is a catalogue that holds a project's agents back
// until the user acknowledged them (*agents.Catalog): a session asks
// about them through the door before its first prompt, as 0.61 shows its
// NewAgentsNotification when a session starts.
type AgentAcknowledger interface {
	Unacknowledged() []subagents.Entry
	Acknowledge(ctx context.Context, name string) ([]error, error)
}

// maxAgentsListed is how many agents the question names (0.61's
// MAX_DISPLAYED_AGENTS).
const maxAgentsListed = 5

// acknowledgeAgents asks the user, once a session, to acknowledge the
// project's agents not yet acknowledged, in 0.61's words; allowed, they
// are recorded in the file Gemini CLI shares and offered from this
// prompt on. Declined, or nobody to ask (headless), they stay held back
// and the next session asks again, as 0.61's "Do not enable (Ask again
// next time)".
func (s *Session) acknowledgeAgents(ctx context.Context, port dialog.Port, emit func(dialog.Event)) {
	ack, ok := s.agent.cfg.Agents.(AgentAcknowledger)
	if !ok || s.askedAgents {
		return
	}
	s.askedAgents = true
	pending := ack.Unacknowledged()
	if len(pending) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("The following agents were found in this project. Please review them:\n")
	for i, e := range pending {
		if i == maxAgentsListed {
			fmt.Fprintf(&b, "\n... and %d more.", len(pending)-maxAgentsListed)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s", e.Definition.Name, e.Definition.Description)
	}
	outcome, err := s.ask(ctx, port, dialog.ConfirmRequest{Kind: dialog.ConfirmAgents, Title: "New Agents Discovered", Details: b.String()})
	if err != nil && !errors.Is(err, dialog.ErrCannotAsk) && !errors.Is(err, errNoConfirmer) && ctx.Err() == nil {
		s.agent.cfg.Logger.Warn("asking about the project's agents", zap.Error(err))
	}
	if !outcome.Allows() {
		return
	}
	for _, e := range pending {
		problems, err := ack.Acknowledge(ctx, e.Definition.Name)
		if err != nil {
			emit(dialog.NoticeEvent{Text: fmt.Sprintf("The agent %s could not be acknowledged: %v", e.Definition.Name, err)})
		}
		for _, p := range problems {
			emit(dialog.NoticeEvent{Text: p.Error()})
		}
	}
}
