package agent

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
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
		edit         = call{tools.ReplaceName, tools.EditConfirmation("")}
		write        = call{tools.WriteFileName, tools.EditConfirmation("")}
		git          = call{tools.ShellName, shell("git")}
		gitRm        = call{tools.ShellName, shell("git", "rm")}
		noKeys       = call{tools.ShellName, shell()}
		fetch        = call{tools.WebFetchName, &tools.Confirmation{Kind: "fetch", AllowKeys: []string{"web_fetch"}}}
		mcpUntrusted = call{"lookup", mcpCall(false)}
		mcpTrusted   = call{"lookup", mcpCall(true)}
	)
	for _, tc := range []struct {
		name        string
		mode        dialog.ApprovalMode
		always      []string // what the user allowed for good
		allowedKeys []string // tools.allowed, as keys
		trusted     []string // tools.allowed, as whole tools
		call        call
		want        bool
	}{
		{name: "no approval needed", mode: dialog.ApprovalDefault, call: read, want: allow},
		{name: "default asks for edits", mode: dialog.ApprovalDefault, call: edit, want: ask},
		{name: "default asks for write_file", mode: dialog.ApprovalDefault, call: write, want: ask},
		{name: "default asks for shell", mode: dialog.ApprovalDefault, call: git, want: ask},
		{name: "default asks for untrusted MCP", mode: dialog.ApprovalDefault, call: mcpUntrusted, want: ask},
		{name: "MCP trust", mode: dialog.ApprovalDefault, call: mcpTrusted, want: allow},
		{name: "auto_edit allows edits", mode: dialog.ApprovalAutoEdit, call: edit, want: allow},
		{name: "auto_edit allows write_file", mode: dialog.ApprovalAutoEdit, call: write, want: allow},
		{name: "auto_edit asks for shell", mode: dialog.ApprovalAutoEdit, call: git, want: ask},
		{name: "auto_edit asks for untrusted MCP", mode: dialog.ApprovalAutoEdit, call: mcpUntrusted, want: ask},
		{name: "auto_edit allows web_fetch, as Gemini CLI's write.toml", mode: dialog.ApprovalAutoEdit, call: fetch, want: allow},
		{name: "default asks for web_fetch", mode: dialog.ApprovalDefault, call: fetch, want: ask},
		{name: "yolo allows shell", mode: dialog.ApprovalYolo, call: git, want: allow},
		{name: "yolo allows edits", mode: dialog.ApprovalYolo, call: edit, want: allow},
		{name: "yolo allows untrusted MCP", mode: dialog.ApprovalYolo, call: mcpUntrusted, want: allow},
		{name: "yolo allows a call without keys", mode: dialog.ApprovalYolo, call: noKeys, want: allow},
		{name: "a call without keys always asks", mode: dialog.ApprovalDefault, always: []string{"git"}, trusted: []string{tools.WebFetchName}, call: noKeys, want: ask},
		{name: "always allow of a command", mode: dialog.ApprovalDefault, always: []string{"git"}, call: git, want: allow},
		{name: "always allow of one command of two", mode: dialog.ApprovalDefault, always: []string{"git"}, call: gitRm, want: ask},
		{name: "always allow of edits", mode: dialog.ApprovalDefault, always: []string{tools.EditKey}, call: write, want: allow},
		{name: "always allow of edits is not of shell", mode: dialog.ApprovalDefault, always: []string{tools.EditKey}, call: git, want: ask},
		{name: "always allow of an MCP tool", mode: dialog.ApprovalDefault, always: []string{"mcp:srv:lookup"}, call: mcpUntrusted, want: allow},
		{name: "tools.allowed command", mode: dialog.ApprovalDefault, allowedKeys: []string{"git"}, call: git, want: allow},
		{name: "tools.allowed and always allow together", mode: dialog.ApprovalDefault, allowedKeys: []string{"git"}, always: []string{"rm"}, call: gitRm, want: allow},
		{name: "tools.allowed edits", mode: dialog.ApprovalDefault, allowedKeys: []string{tools.EditKey}, call: edit, want: allow},
		{name: "tools.allowed whole tool", mode: dialog.ApprovalDefault, trusted: []string{tools.WebFetchName}, call: fetch, want: allow},
		{name: "tools.allowed whole tool is that tool only", mode: dialog.ApprovalDefault, trusted: []string{tools.WebFetchName}, call: git, want: ask},
		{name: "tools.allowed whole MCP tool", mode: dialog.ApprovalDefault, trusted: []string{"lookup"}, call: mcpUntrusted, want: allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() dialog.ApprovalMode { return tc.mode }, noPlans, builtinAnnotations, tc.allowedKeys, tc.trusted)
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
	mode := dialog.ApprovalDefault
	a := newApprovals(func() dialog.ApprovalMode { return mode }, noPlans, builtinAnnotations, []string{"git"}, nil)
	if a.allows(tools.ReplaceName, tools.EditConfirmation("")) {
		t.Fatal("default mode allowed an edit")
	}
	mode = dialog.ApprovalAutoEdit
	if !a.allows(tools.ReplaceName, tools.EditConfirmation("")) {
		t.Error("a change to auto_edit did not apply at once")
	}
	a.allowAlways("rm")
	if got := a.keys(); !slices.Equal(got, []string{"rm"}) {
		t.Errorf("keys() = %q: want only what the user allowed, not the settings' keys", got)
	}
}

// Plan mode, as Gemini CLI's plan.toml decides it: the read-only tools
// run, web_fetch asks, the plan file may be written without asking, and
// everything else is refused with words the model can act on, whatever
// was allowed before. The planning tools refuse the mode the session is
// already in.
func TestApprovalsPlanMode(t *testing.T) {
	plans := filepath.Join(t.TempDir(), "plans")
	const (
		refusedMode  = planModeRefusal
		refusedEdit  = planEditRefusal
		runs         = "runs"
		asks         = "asks"
		anyOtherMode = dialog.ApprovalDefault
	)
	edit := func(name, path string) (string, *tools.Confirmation) { return name, tools.EditConfirmation(path) }
	type call struct {
		name string
		c    *tools.Confirmation
	}
	mk := func(name string, c *tools.Confirmation) call { return call{name, c} }
	for _, tc := range []struct {
		name string
		mode dialog.ApprovalMode
		call call
		want string
	}{
		{"read_file runs", dialog.ApprovalPlan, mk(tools.ReadFileName, nil), runs},
		{"list_directory runs", dialog.ApprovalPlan, mk(tools.ListDirectoryName, nil), runs},
		{"glob runs", dialog.ApprovalPlan, mk(tools.GlobName, nil), runs},
		{"grep_search runs", dialog.ApprovalPlan, mk(tools.GrepSearchName, nil), runs},
		{"google_web_search runs", dialog.ApprovalPlan, mk(tools.WebSearchName, nil), runs},
		{"ask_user runs", dialog.ApprovalPlan, mk("ask_user", nil), runs},
		{"web_fetch asks although allowed for good", dialog.ApprovalPlan, mk(tools.WebFetchName, &tools.Confirmation{Kind: "fetch", AllowKeys: []string{"web_fetch:example.com"}}), asks},
		{"exit_plan_mode runs", dialog.ApprovalPlan, mk(tools.ExitPlanModeName, nil), runs},
		{"the plan file is written without asking", dialog.ApprovalPlan, mk(edit(tools.WriteFileName, filepath.Join(plans, "feature-x.md"))), runs},
		{"the plan file is edited without asking", dialog.ApprovalPlan, mk(edit(tools.ReplaceName, filepath.Join(plans, "feature-x.md"))), runs},
		{"a source file is not written", dialog.ApprovalPlan, mk(edit(tools.WriteFileName, "/src/main.go")), refusedEdit},
		{"a source file is not edited", dialog.ApprovalPlan, mk(edit(tools.ReplaceName, "/src/main.go")), refusedEdit},
		{"a text file in the plans directory is not written", dialog.ApprovalPlan, mk(edit(tools.WriteFileName, filepath.Join(plans, "notes.txt"))), refusedEdit},
		{"a Markdown file below the plans directory is not written", dialog.ApprovalPlan, mk(edit(tools.WriteFileName, filepath.Join(plans, "sub", "x.md"))), refusedEdit},
		{"a Markdown file elsewhere is not written", dialog.ApprovalPlan, mk(edit(tools.WriteFileName, "/src/README.md")), refusedEdit},
		{"shell is refused although allowed for good", dialog.ApprovalPlan, mk(tools.ShellName, &tools.Confirmation{Kind: "execute", AllowKeys: []string{"git"}}), refusedMode},
		{"an edit that proposes no change is refused", dialog.ApprovalPlan, mk("remember_fact", &tools.Confirmation{Kind: "edit", AllowKeys: []string{"remember_fact"}}), refusedMode},
		{"write_todos is refused", dialog.ApprovalPlan, mk(tools.WriteTodosName, nil), refusedMode},
		{"a trusted MCP tool is refused", dialog.ApprovalPlan, mk("lookup", &tools.Confirmation{Kind: "mcp", AllowKeys: []string{"mcp:srv:lookup"}, Trusted: true}), refusedMode},
		{"enter_plan_mode in plan mode", dialog.ApprovalPlan, mk(tools.EnterPlanModeName, &tools.Confirmation{Kind: "plan"}), alreadyPlanning},
		{"enter_plan_mode asks in default mode", anyOtherMode, mk(tools.EnterPlanModeName, &tools.Confirmation{Kind: "plan"}), asks},
		{"enter_plan_mode runs in yolo (a default policy rule refuses it where someone could be asked)", dialog.ApprovalYolo, mk(tools.EnterPlanModeName, &tools.Confirmation{Kind: "plan"}), runs},
		{"exit_plan_mode outside plan mode", anyOtherMode, mk(tools.ExitPlanModeName, nil), notPlanning},
		{"exit_plan_mode in auto_edit", dialog.ApprovalAutoEdit, mk(tools.ExitPlanModeName, nil), notPlanning},
		{"default mode does not refuse a source edit", anyOtherMode, mk(edit(tools.WriteFileName, "/src/main.go")), runs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() dialog.ApprovalMode { return tc.mode }, func() string { return plans }, builtinAnnotations, nil, nil)
			a.allowAlways("git", "web_fetch:example.com", tools.EditKey, "remember_fact")
			got := a.refusal(tc.call.name, tc.call.c)
			if got == "" {
				got = asks
				if a.allows(tc.call.name, tc.call.c) {
					got = runs
				}
			}
			if got != tc.want {
				t.Errorf("%s %s in %s mode: %q, want %q", tc.call.name, describe(tc.call.c), tc.mode, got, tc.want)
			}
		})
	}
}

// noPlans is a session without a plans directory.
func noPlans() string { return "" }

// builtinAnnotations is what the built-in tool called name says it is
// (plan mode's tools and activate_skill among them).
func builtinAnnotations(name string) tools.Annotations {
	for _, t := range tools.Builtin(tools.Options{Plan: tools.PlanOptions{Enabled: true}, Skills: &skills.Catalog{}}) {
		if t.Name() == name {
			return tools.AnnotationsOf(t)
		}
	}
	return tools.Annotations{}
}
