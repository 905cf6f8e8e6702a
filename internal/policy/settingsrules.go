package policy

import "github.com/gemini-ls/gemini-ls/internal/tools"

// confirmationRequiredPriority is tools.confirmationRequired's rules'
// priority, Gemini CLI 0.61's CONFIRMATION_REQUIRED_PRIORITY: in the
// user tier, above tools.allowed (4.3) and a trusted MCP server (4.2),
// which it "takes precedence over".
const confirmationRequiredPriority = float64(TierUser) + 0.35

// ConfirmationRequired are the rules settings' tools.confirmationRequired
// makes, as Gemini CLI 0.61 makes them (createPolicyEngineConfig): each
// tool named asks the user in every mode, yolo's too, whatever allows it;
// the shell tool by either of its names. Headless, where nobody can be
// asked, its calls are refused.
func ConfirmationRequired(names []string) []*Rule {
	var out []*Rule
	for _, name := range names {
		if name == "ShellTool" {
			name = tools.ShellName
		}
		out = append(out, &Rule{ToolName: name, Decision: AskUser, Priority: confirmationRequiredPriority, Source: "Settings (Confirmation Required)"})
	}
	return out
}
