package agent

import (
	"context"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// AgentNamed reports whether name is an enabled subagent's: what an
// @name in a prompt is checked against. It is the session's catalogue of
// agents as it is when the prompt is sent (0.61's
// agentRegistry.getDefinition, which knows only enabled agents).
type AgentNamed func(name string) bool

// ExpandReferencesAndAgents is ExpandReferences for a session that hires
// subagents, as Gemini CLI 0.61's handleAtCommand
// (chunk-4GP6HFBO.js:67187) does it: an @name that names an enabled agent
// (isAgent) is the user's choice of agent, not a path; it is checked
// first, so an agent wins over a file of the same name
// (categorizeAtCommands, chunk-4GP6HFBO.js:66812). It stays in the prompt
// as typed, anywhere in it, and a system note right after the prompt,
// ahead of any referenced files' content, asks the model to delegate to
// the agents named, in the order named. isAgent nil: no agent, as
// ExpandReferences.
func ExpandReferencesAndAgents(ctx context.Context, ws *workspace.Workspace, prompt string, isAgent AgentNamed) ([]*genai.Part, error) {
	return expandReferences(ctx, ws, prompt, referents{isAgent: isAgent})
}

// splitAgents separates the references that name agents from those that
// name paths.
func splitAgents(refs []reference, isAgent AgentNamed) (paths []reference, agents []string) {
	if isAgent == nil {
		return refs, nil
	}
	for _, r := range refs {
		if isAgent(r.name) {
			agents = append(agents, r.name)
		} else {
			paths = append(paths, r)
		}
	}
	return paths, agents
}

// agentNote is 0.61's nudge (chunk-4GP6HFBO.js:67213-67220), word for
// word: it names each agent as a tool, as 0.61 does, though the model
// reaches it through invoke_agent.
func agentNote(agents []string) *genai.Part {
	quoted := make([]string, len(agents))
	for i, a := range agents {
		quoted[i] = "'" + a + "'"
	}
	return genai.NewPartFromText("\n<system_note>\nThe user has explicitly selected the following agent(s): " + strings.Join(agents, ", ") +
		". Please use the following tool(s) to delegate the task: " + strings.Join(quoted, ", ") + ".\n</system_note>\n")
}
