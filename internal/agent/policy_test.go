package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// userPolicy is an engine of one user policy file.
func userPolicy(t *testing.T, interactive bool, toml string) *policy.Engine {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, interactive)
	for _, p := range e.Problems() {
		t.Fatalf("policy problem: %s", p)
	}
	return e
}

const doorRules = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
denyMessage = "Deletion is permanent"

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 100

[[rule]]
mcpName = "srv"
toolName = "lookup"
decision = "allow"
priority = 100

[[rule]]
toolName = "read_file"
decision = "ask_user"
priority = 100

[[rule]]
toolName = "web_fetch"
decision = "deny"
priority = 500
`

// The door consults the rules first, ranked as Gemini CLI ranks them
// against the approval mode (default tier, below every file's rule),
// tools.allowed (4.3), an MCP server's trust (4.2) and "always allow"
// (3.95); where no rule decides, the built-in logic does.
func TestDoorFollowsPolicyRules(t *testing.T) {
	shellCall := func(command string) (policy.Call, string, *tools.Confirmation) {
		return policy.Call{Name: tools.ShellName, Args: map[string]any{"command": command}}, tools.ShellName, tools.ShellConfirmation(osshell.Bash, command)
	}
	write := func() (policy.Call, string, *tools.Confirmation) {
		return policy.Call{Name: tools.WriteFileName, Args: map[string]any{"file_path": "a.txt", "content": "x"}}, tools.WriteFileName, tools.EditConfirmation("/w/a.txt")
	}
	mcpCall := func(tool string, trusted bool) func() (policy.Call, string, *tools.Confirmation) {
		return func() (policy.Call, string, *tools.Confirmation) {
			return policy.Call{Name: policy.MCPToolName("srv", tool), Server: "srv", Args: map[string]any{}}, tool,
				&tools.Confirmation{Kind: "mcp", AllowKeys: []string{"mcp:srv:" + tool}, Trusted: trusted}
		}
	}
	read := func() (policy.Call, string, *tools.Confirmation) {
		return policy.Call{Name: tools.ReadFileName, Args: map[string]any{"file_path": "a.txt"}}, tools.ReadFileName, nil
	}
	fetch := func() (policy.Call, string, *tools.Confirmation) {
		return policy.Call{Name: tools.WebFetchName, Args: map[string]any{"prompt": "x"}}, tools.WebFetchName,
			&tools.Confirmation{Kind: "fetch", AllowKeys: []string{"web_fetch"}}
	}
	skill := func() (policy.Call, string, *tools.Confirmation) {
		return policy.Call{Name: tools.ActivateSkillName, Args: map[string]any{"name": "x"}}, tools.ActivateSkillName,
			&tools.Confirmation{Kind: "skill", AllowKeys: []string{"skill:x"}}
	}
	enterPlanMode := func(c *tools.Confirmation) func() (policy.Call, string, *tools.Confirmation) {
		return func() (policy.Call, string, *tools.Confirmation) {
			return policy.Call{Name: tools.EnterPlanModeName, Args: map[string]any{}}, tools.EnterPlanModeName, c
		}
	}
	shell := func(command string) func() (policy.Call, string, *tools.Confirmation) {
		return func() (policy.Call, string, *tools.Confirmation) { return shellCall(command) }
	}
	const denied = "Tool execution denied by policy. Deletion is permanent"
	for _, tc := range []struct {
		name        string
		mode        dialog.ApprovalMode
		headless    bool
		allowedKeys []string
		trusted     []string
		always      []string
		call        func() (policy.Call, string, *tools.Confirmation)
		want        verdict
	}{
		{name: "deny of a prefix, even in yolo", mode: dialog.ApprovalYolo, call: shell("rm -rf build"), want: verdict{refusal: denied}},
		{name: "deny of a part of a line", mode: dialog.ApprovalYolo, call: shell("ls && rm -rf build"), want: verdict{refusal: denied}},
		{name: "deny outranks always allow", mode: dialog.ApprovalDefault, always: []string{"rm"}, call: shell("rm x"), want: verdict{refusal: denied}},
		{name: "tools.allowed outranks a priority-100 deny", mode: dialog.ApprovalDefault, allowedKeys: []string{"rm"}, call: shell("rm x"), want: verdict{}},
		{name: "a priority-500 deny outranks tools.allowed", mode: dialog.ApprovalDefault, trusted: []string{tools.WebFetchName}, call: fetch, want: verdict{refusal: "Tool execution denied by policy."}},
		{name: "allow of a prefix", mode: dialog.ApprovalDefault, call: shell("git status"), want: verdict{}},
		{name: "allow of a prefix outranks plan mode", mode: dialog.ApprovalPlan, call: shell("git log"), want: verdict{}},
		{name: "allowed line with an undecided part asks", mode: dialog.ApprovalDefault, call: shell("git status && make"), want: verdict{ask: true, always: true}},
		{name: "allowed line with an undecided part in yolo", mode: dialog.ApprovalYolo, call: shell("git status && make"), want: verdict{}},
		{name: "allowed line with an undecided part in plan mode", mode: dialog.ApprovalPlan, call: shell("git status && make"), want: verdict{refusal: planModeRefusal}},
		{name: "ask for a write in auto_edit", mode: dialog.ApprovalAutoEdit, call: write, want: verdict{ask: true}},
		{name: "ask for a write in yolo", mode: dialog.ApprovalYolo, call: write, want: verdict{ask: true}},
		{name: "ask for a write outranks always allow", mode: dialog.ApprovalDefault, always: []string{tools.EditKey}, call: write, want: verdict{ask: true}},
		{name: "ask headless is a refusal", mode: dialog.ApprovalAutoEdit, headless: true, call: write,
			want: verdict{refusal: `Tool execution for "write_file" requires user confirmation, which is not supported in non-interactive mode.`}},
		{name: "ask for a call that needs no approval", mode: dialog.ApprovalDefault, call: read, want: verdict{ask: true}},
		{name: "allow of an MCP tool", mode: dialog.ApprovalDefault, call: mcpCall("lookup", false), want: verdict{}},
		{name: "MCP trust outranks a priority-100 rule", mode: dialog.ApprovalDefault, call: mcpCall("lookup", true), want: verdict{}},
		{name: "in plan mode, MCP trust counts for nothing: the rule allows", mode: dialog.ApprovalPlan, call: mcpCall("lookup", true), want: verdict{}},
		{name: "in plan mode, without a rule, trust counts for nothing", mode: dialog.ApprovalPlan, call: mcpCall("other", true), want: verdict{refusal: planModeRefusal}},
		{name: "no rule for another MCP tool", mode: dialog.ApprovalDefault, call: mcpCall("other", false), want: verdict{ask: true, always: true}},
		{name: "no rule: built-in", mode: dialog.ApprovalDefault, call: shell("make"), want: verdict{ask: true, always: true}},
		{name: "no rule: a line always allow cannot cover", mode: dialog.ApprovalDefault, call: shell("make > log.txt"), want: verdict{ask: true}},
		{name: "in plan mode, always allow counts for nothing", mode: dialog.ApprovalPlan, call: skill, want: verdict{ask: true}},
		{name: "outside plan mode, the same call's always allow holds", mode: dialog.ApprovalDefault, call: skill, want: verdict{ask: true, always: true}},
		{name: "no rule: built-in yolo", mode: dialog.ApprovalYolo, call: shell("make"), want: verdict{}},
		{name: "no rule: built-in plan mode", mode: dialog.ApprovalPlan, call: shell("make"), want: verdict{refusal: planModeRefusal}},
		{name: "yolo.toml's default rule refuses plan mode in yolo where someone could be asked", mode: dialog.ApprovalYolo, call: enterPlanMode(&tools.Confirmation{Kind: "plan"}), want: verdict{refusal: "Tool execution denied by policy."}},
		{name: "yolo.toml's default rule is not for headless yolo: plan mode runs", mode: dialog.ApprovalYolo, headless: true, call: enterPlanMode(nil), want: verdict{}},
		{name: "tools.allowed outranks yolo.toml's default rule", mode: dialog.ApprovalYolo, trusted: []string{tools.EnterPlanModeName}, call: enterPlanMode(&tools.Confirmation{Kind: "plan"}), want: verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() dialog.ApprovalMode { return tc.mode }, noPlans, builtinAnnotations, tc.allowedKeys, tc.trusted)
			a.policy = userPolicy(t, !tc.headless, doorRules)
			a.allowAlways(tc.always...)
			call, name, c := tc.call()
			if got := a.decide(call, name, c); got != tc.want {
				t.Errorf("decide(%s %v) = %+v, want %+v", call.Name, call.Args, got, tc.want)
			}
		})
	}
}

// namedTool is a tool that is only a name.
type namedTool string

func (n namedTool) Name() string { return string(n) }
func (n namedTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: string(n)}
}
func (n namedTool) Build(map[string]any) (tools.Call, error) { return nil, nil }

// A tool a rule denies whatever its arguments is not declared to the
// model, as in Gemini CLI, unless settings' tools.allowed outranks the
// rule; a rule that denies some arguments only, or another mode, hides
// nothing.
func TestToolsDeniedOutrightAreNotDeclared(t *testing.T) {
	engine := userPolicy(t, true, `
[[rule]]
toolName = "web_fetch"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "glob"
decision = "deny"
priority = 100
modes = ["plan"]

[[rule]]
toolName = "google_web_search"
decision = "deny"
priority = 100
`)
	reg := tools.NewRegistry(namedTool(tools.WebFetchName), namedTool(tools.ShellName), namedTool(tools.GlobName), namedTool(tools.WebSearchName))
	a := New(Config{Tools: reg, Policy: engine, TrustedTools: []string{tools.WebSearchName}})
	declared := func(mode dialog.ApprovalMode) []string {
		var names []string
		for _, tool := range a.offeredTools(mode, "") {
			for _, d := range tool.FunctionDeclarations {
				names = append(names, d.Name)
			}
		}
		return names
	}
	if got, want := declared(dialog.ApprovalDefault), []string{tools.ShellName, tools.GlobName, tools.WebSearchName}; !slices.Equal(got, want) {
		t.Errorf("declared %q, want %q", got, want)
	}
	// Each mode its own: the plan mode rule hides glob there only; 0.61's
	// plan.toml hides the shell; tools.allowed does not count in plan
	// mode (the approval door does not count it there), so the rule
	// hides google_web_search.
	if got, want := declared(dialog.ApprovalPlan), []string(nil); !slices.Equal(got, want) {
		t.Errorf("declared in plan mode %q, want %q", got, want)
	}
	if got, want := declared(dialog.ApprovalDefault), []string{tools.ShellName, tools.GlobName, tools.WebSearchName}; !slices.Equal(got, want) {
		t.Errorf("declared in the default mode again %q, want %q", got, want)
	}
}

// Where nobody can be asked (headless), the model is told only of the
// tools something lets run without asking in the mode, as Gemini CLI
// 0.61's default decision there is to deny: its default policies (the
// read-only tools), a policy rule, tools.allowed (a tool, or some of the
// shell's commands); ask_user never.
func TestHeadlessDeclaresWhatRunsUnasked(t *testing.T) {
	all := []string{tools.ReadFileName, tools.GlobName, tools.WriteTodosName, tools.ShellName, tools.AskUserName, tools.WriteFileName, tools.WebFetchName}
	named := make([]tools.Tool, len(all))
	for i, n := range all {
		named[i] = namedTool(n)
	}
	reg := tools.NewRegistry(named...)
	declared := func(a *Agent, mode dialog.ApprovalMode) []string {
		var names []string
		for _, tool := range a.offeredTools(mode, "") {
			for _, d := range tool.FunctionDeclarations {
				names = append(names, d.Name)
			}
		}
		return names
	}
	headless := policy.Load(nil, false)
	for _, tc := range []struct {
		name string
		cfg  Config
		mode dialog.ApprovalMode
		want []string
	}{
		{"default", Config{}, dialog.ApprovalDefault, []string{tools.ReadFileName, tools.GlobName}},
		{"auto_edit", Config{}, dialog.ApprovalAutoEdit, []string{tools.ReadFileName, tools.GlobName, tools.WriteFileName, tools.WebFetchName}},
		{"yolo", Config{}, dialog.ApprovalYolo, []string{tools.ReadFileName, tools.GlobName, tools.WriteTodosName, tools.ShellName, tools.WriteFileName, tools.WebFetchName}},
		{"tools.allowed names write_file", Config{TrustedTools: []string{tools.WriteFileName}}, dialog.ApprovalDefault, []string{tools.ReadFileName, tools.GlobName, tools.WriteFileName}},
		{"tools.allowed names git", Config{AllowedKeys: []string{"git"}}, dialog.ApprovalDefault, []string{tools.ReadFileName, tools.GlobName, tools.ShellName}},
		{"interactive", Config{Policy: policy.Load(nil, true)}, dialog.ApprovalDefault, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Tools, cfg.Model = reg, models.Gemini25Flash // offered write_todos
			if cfg.Policy == nil {
				cfg.Policy = headless
			}
			if got := declared(New(cfg), tc.mode); !slices.Equal(got, tc.want) {
				t.Errorf("declared %q, want %q", got, tc.want)
			}
		})
	}
}
