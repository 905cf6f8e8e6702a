package agent

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A shell command is remembered by its name, and an edit by the key
// "edit": a program named edit (Debian's run-mailcap) or mcp:SERVER:TOOL
// is not an edit or an MCP tool to the door. auto_edit asks about it, and
// its "always allow" allows no other kind of call (none is offered).
func TestAShellCommandNamedLikeAnotherApprovalAlwaysAsks(t *testing.T) {
	shellCall := func(cmd string) (policy.Call, *tools.Confirmation) {
		return policy.Call{Name: tools.ShellName, Args: map[string]any{"command": cmd}}, tools.ShellConfirmation(osshell.Bash, cmd)
	}
	autoEdit := newApprovals(func() dialog.ApprovalMode { return dialog.ApprovalAutoEdit }, noPlans, builtinAnnotations, nil, nil)
	for _, cmd := range []string{"edit --action=print notes.txt", "ls && edit notes.txt"} {
		call, c := shellCall(cmd)
		if v := autoEdit.decide(call, tools.ShellName, c); !v.ask {
			t.Errorf("auto_edit: shell %q runs unasked (keys %q)", cmd, c.AllowKeys)
		}
	}
	for _, tc := range []struct {
		cmd   string
		other *tools.Confirmation
		name  string
	}{
		{"edit notes.txt", tools.EditConfirmation("/home/u/project/main.go"), tools.WriteFileName},
		{"mcp:gh:open_issue x", &tools.Confirmation{AllowKeys: []string{"mcp:gh:open_issue"}}, "mcp_gh_open_issue"},
	} {
		_, c := shellCall(tc.cmd)
		if c.CanAllowAlways() {
			t.Errorf("shell %q offers an always allow of %q", tc.cmd, c.AllowKeys)
		}
		a := newApprovals(func() dialog.ApprovalMode { return dialog.ApprovalDefault }, noPlans, builtinAnnotations, nil, nil)
		a.allowAlways(c.AllowKeys...)
		if v := a.decide(policy.Call{Name: tc.name}, tc.name, tc.other); !v.ask {
			t.Errorf("an always allow of shell %q made %s run unasked", tc.cmd, tc.name)
		}
	}
}
