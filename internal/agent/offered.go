package agent

import (
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// offers reports whether the model is told of tool name in mode. As in
// Gemini CLI 0.61 (getExcludedTools), the policy decides, whatever the
// arguments: its default policies, the policy files' rules and what
// settings allow (policy.Engine.Excludes). So a session that cannot ask
// (headless) offers only what some rule or setting lets run in the
// mode, and ask_user never; an editor's or an ACP client's offers all
// but what a rule denies.
//
// A tool 0.61 offers only on some models is offered on those alone:
// write_todos on a Gemini 2 model that is not a preview
// (models.DeclaresWriteTodos), by the model configured.
func (a *Agent) offers(name string, mode dialog.ApprovalMode) bool {
	if name == tools.WriteTodosName && !models.DeclaresWriteTodos(a.configuredModel()) {
		return false
	}
	if a.cfg.Policy == nil {
		return true
	}
	tool, ok := a.cfg.Tools.Get(name)
	if !ok {
		return true
	}
	call := policyCall(tool, &genai.FunctionCall{Name: name})
	call.Mode = policyMode(mode)
	return !a.cfg.Policy.Excludes(call, a.settingsAllow(name, tool, mode))
}

// settingsAllow is the priority of what settings allow calls of tool
// name by, as 0.61 ranks the rules it makes of them: tools.allowed (the
// tool, or some of its commands, or an MCP tool by its server's name),
// then an MCP server's trust; 0 for none, and in plan mode, where the
// approval door counts neither (approvals.allowedPriority).
func (a *Agent) settingsAllow(name string, tool tools.Tool, mode dialog.ApprovalMode) float64 {
	switch {
	case mode == dialog.ApprovalPlan:
		return 0
	case slices.Contains(a.cfg.TrustedTools, name), slices.ContainsFunc(a.cfg.AllowedKeys, func(key string) bool { return allowsSome(tool, name, key) }):
		return toolsAllowedPriority
	}
	if t, ok := tool.(interface{ MCPTrusted() bool }); ok && t.MCPTrusted() {
		return trustedMCPPriority
	}
	return 0
}

// allowsSome reports whether tools.allowed's approval key lets some
// calls of tool name run: an MCP tool's own key, or a shell command's
// name for the shell tool.
func allowsSome(tool tools.Tool, name, key string) bool {
	if m, ok := tool.(mcpTool); ok {
		server, remote := m.MCPOrigin()
		return key == "mcp:"+server+":"+remote
	}
	return name == tools.ShellName && tools.IsShellKey(key)
}
