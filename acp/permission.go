package acp

// SKELETON (helper "edits" replaces this file): edits and confirmations
// through session/request_permission.

import (
	"context"
	"fmt"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

type proposer struct{ sess *session }

func (sess *session) proposer() tools.ChangeProposer { return proposer{sess} }

func (p proposer) Propose(context.Context, workspace.FileChange) (tools.Decision, error) {
	return tools.Decision{Outcome: tools.Declined, Reason: "not built yet"}, nil
}

type confirmer struct{ sess *session }

func (sess *session) confirmer() agent.Confirmer { return confirmer{sess} }

func (confirmer) Confirm(context.Context, agent.ConfirmRequest) (agent.ConfirmOutcome, error) {
	return agent.Cancel, fmt.Errorf("%w: not built yet", agent.ErrCannotAsk)
}
