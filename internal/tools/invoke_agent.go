package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Delegator runs the subagent called agentName on prompt for the call
// being executed, and returns what the calling model reads of its run.
// The agent's turn gives one in CallInfo; it ends with ctx.
type Delegator func(ctx context.Context, agentName, prompt string) (Result, error)

// AgentNames says which subagents invoke_agent may hire now.
type AgentNames interface {
	// HasAgent reports whether an enabled agent is called name.
	HasAgent(name string) bool
}

type invokeAgentParams struct {
	AgentName string `json:"agent_name" jsonschema:"Name of the subagent to invoke"`
	Prompt    string `json:"prompt" jsonschema:"The COMPLETE query to send the subagent. MUST be comprehensive and detailed. Include all context, background, questions, and expected output format. Do NOT send brief or incomplete instructions."`
}

// NewInvokeAgent is 0.61's invoke_agent over the agents agents names:
// its declaration, word for word (bundle chunk-JDPZ4CE3.js:353278-
// 353298), derived when first asked for (a run that offers no subagent
// never needs it), and its unknown agent error: 0.61's createInvocation
// throws "Subagent '…' not found." (bundle chunk-JDPZ4CE3.js:353306).
// It delegates: what its subagent may do is the subagent's calls'
// business, each passing the approval door itself.
func NewInvokeAgent(agents AgentNames) Tool {
	return Define(Spec{
		Name:        InvokeAgentName,
		Description: "Invoke a subagent to perform a specific task or investigation.",
		Annotations: Annotations{Kind: dialog.KindAgent, Delegates: true},
		Aliases:     []string{"AgentTool"},
	}, func(p invokeAgentParams) (Call, error) {
		if agents == nil || !agents.HasAgent(p.AgentName) {
			return nil, fmt.Errorf("Subagent '%s' not found.", p.AgentName)
		}
		return invokeAgentCall{p: p}, nil
	})
}

type invokeAgentCall struct{ p invokeAgentParams }

// Title is 0.61's DelegateInvocation.getDescription.
func (c invokeAgentCall) Title() string {
	return fmt.Sprintf("Delegating to agent '%s'", c.p.AgentName)
}

// Confirmation: none; 0.61's agents.toml allows invoke_agent in every
// mode but plan, its subagent's calls asking for themselves.
func (invokeAgentCall) Confirmation() *Confirmation { return nil }

func (c invokeAgentCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	if info.Delegate == nil {
		return Result{}, errors.New("no subagent can run here")
	}
	return info.Delegate(ctx, c.p.AgentName, c.p.Prompt)
}
