package agent

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/tools"
)

// Each rule of the one approval service: what runs without asking, by
// approval mode, kind of call, the user's "always allow", an MCP server's
// trust and settings' tools.allowed.
func TestApprovalsAllow(t *testing.T) {
	shell := func(commands ...string) *tools.Confirmation {
		return &tools.Confirmation{Kind: "execute", AllowKeys: commands}
	}
	mcpCall := func(trusted bool) *tools.Confirmation {
		return &tools.Confirmation{Kind: "mcp", AllowKeys: []string{"mcp:srv:lookup"}, Trusted: trusted}
	}
	const (
		allow = true
		ask   = false
	)
	type call struct {
		name string
		c    *tools.Confirmation
	}
	var (
		read         = call{tools.ReadFileName, nil}
		edit         = call{tools.ReplaceName, tools.EditConfirmation()}
		write        = call{tools.WriteFileName, tools.EditConfirmation()}
		git          = call{tools.ShellName, shell("git")}
		gitRm        = call{tools.ShellName, shell("git", "rm")}
		noKeys       = call{tools.ShellName, shell()}
		fetch        = call{tools.WebFetchName, &tools.Confirmation{Kind: "fetch", AllowKeys: []string{"web_fetch"}}}
		mcpUntrusted = call{"lookup", mcpCall(false)}
		mcpTrusted   = call{"lookup", mcpCall(true)}
	)
	for _, tc := range []struct {
		name        string
		mode        tools.ApprovalMode
		always      []string // what the user allowed for good
		allowedKeys []string // tools.allowed, as keys
		trusted     []string // tools.allowed, as whole tools
		call        call
		want        bool
	}{
		{name: "no approval needed", mode: tools.ApprovalDefault, call: read, want: allow},
		{name: "default asks for edits", mode: tools.ApprovalDefault, call: edit, want: ask},
		{name: "default asks for write_file", mode: tools.ApprovalDefault, call: write, want: ask},
		{name: "default asks for shell", mode: tools.ApprovalDefault, call: git, want: ask},
		{name: "default asks for untrusted MCP", mode: tools.ApprovalDefault, call: mcpUntrusted, want: ask},
		{name: "MCP trust", mode: tools.ApprovalDefault, call: mcpTrusted, want: allow},
		{name: "auto_edit allows edits", mode: tools.ApprovalAutoEdit, call: edit, want: allow},
		{name: "auto_edit allows write_file", mode: tools.ApprovalAutoEdit, call: write, want: allow},
		{name: "auto_edit asks for shell", mode: tools.ApprovalAutoEdit, call: git, want: ask},
		{name: "auto_edit asks for untrusted MCP", mode: tools.ApprovalAutoEdit, call: mcpUntrusted, want: ask},
		{name: "yolo allows shell", mode: tools.ApprovalYolo, call: git, want: allow},
		{name: "yolo allows edits", mode: tools.ApprovalYolo, call: edit, want: allow},
		{name: "yolo allows untrusted MCP", mode: tools.ApprovalYolo, call: mcpUntrusted, want: allow},
		{name: "yolo allows a call without keys", mode: tools.ApprovalYolo, call: noKeys, want: allow},
		{name: "a call without keys always asks", mode: tools.ApprovalDefault, always: []string{"git"}, trusted: []string{tools.WebFetchName}, call: noKeys, want: ask},
		{name: "always allow of a command", mode: tools.ApprovalDefault, always: []string{"git"}, call: git, want: allow},
		{name: "always allow of one command of two", mode: tools.ApprovalDefault, always: []string{"git"}, call: gitRm, want: ask},
		{name: "always allow of edits", mode: tools.ApprovalDefault, always: []string{tools.EditKey}, call: write, want: allow},
		{name: "always allow of edits is not of shell", mode: tools.ApprovalDefault, always: []string{tools.EditKey}, call: git, want: ask},
		{name: "always allow of an MCP tool", mode: tools.ApprovalDefault, always: []string{"mcp:srv:lookup"}, call: mcpUntrusted, want: allow},
		{name: "tools.allowed command", mode: tools.ApprovalDefault, allowedKeys: []string{"git"}, call: git, want: allow},
		{name: "tools.allowed and always allow together", mode: tools.ApprovalDefault, allowedKeys: []string{"git"}, always: []string{"rm"}, call: gitRm, want: allow},
		{name: "tools.allowed edits", mode: tools.ApprovalDefault, allowedKeys: []string{tools.EditKey}, call: edit, want: allow},
		{name: "tools.allowed whole tool", mode: tools.ApprovalDefault, trusted: []string{tools.WebFetchName}, call: fetch, want: allow},
		{name: "tools.allowed whole tool is that tool only", mode: tools.ApprovalDefault, trusted: []string{tools.WebFetchName}, call: git, want: ask},
		{name: "tools.allowed whole MCP tool", mode: tools.ApprovalDefault, trusted: []string{"lookup"}, call: mcpUntrusted, want: allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() tools.ApprovalMode { return tc.mode }, tc.allowedKeys, tc.trusted)
			a.allowAlways(tc.always...)
			if got := a.allows(tc.call.name, tc.call.c); got != tc.want {
				t.Errorf("allows(%s, %s) = %v, want %v", tc.call.name, describe(tc.call.c), got, tc.want)
			}
		})
	}
}

func describe(c *tools.Confirmation) string {
	if c == nil {
		return "no confirmation"
	}
	return fmt.Sprintf("%s %q trusted=%v", c.Kind, c.AllowKeys, c.Trusted)
}

func TestApprovalsModeIsReadOnEveryQuestion(t *testing.T) {
	mode := tools.ApprovalDefault
	a := newApprovals(func() tools.ApprovalMode { return mode }, []string{"git"}, nil)
	if a.allows(tools.ReplaceName, tools.EditConfirmation()) {
		t.Fatal("default mode allowed an edit")
	}
	mode = tools.ApprovalAutoEdit
	if !a.allows(tools.ReplaceName, tools.EditConfirmation()) {
		t.Error("a change to auto_edit did not apply at once")
	}
	a.allowAlways("rm")
	if got := a.keys(); !slices.Equal(got, []string{"rm"}) {
		t.Errorf("keys() = %q: want only what the user allowed, not the settings' keys", got)
	}
}
