package policy_test

import (
	"github.com/gemini-ls/gemini-ls/internal/tools"

	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// load writes files (name → TOML) into a directory of tier and loads it.
func load(t *testing.T, tier policy.Tier, interactive bool, files map[string]string) *policy.Engine {
	t.Helper()
	return policy.Load([]policy.Source{{Tier: tier, Path: writeDir(t, files)}}, interactive)
}

// fromFiles are e's rules but the built-in ones (internal/policy/defaults).
func fromFiles(e *policy.Engine) []*policy.Rule {
	return slices.DeleteFunc(slices.Clone(e.Rules()), func(r *policy.Rule) bool { return r.Source == "Default: yolo.toml" })
}

func writeDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func shell(command string) policy.Call {
	return policy.Call{Name: tools.ShellName, Args: map[string]any{"command": command}, Mode: policy.ModeDefault}
}

func mcp(server, tool string) policy.Call {
	return policy.Call{Name: policy.MCPToolName(server, tool), Server: server, Args: map[string]any{"query": "x"}, Mode: policy.ModeDefault}
}

func noProblems(t *testing.T, e *policy.Engine) {
	t.Helper()
	for _, p := range e.Problems() {
		t.Errorf("problem: %s", p)
	}
}

// The docs' quick start and their examples of run_shell_command's
// shorthands: commandPrefix matches the command's start up to a word's
// end, a list of prefixes is one rule each, commandRegex matches from the
// command's start; each part of a compound command is checked.
func TestShellCommandRules(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"my-rules.toml": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm -rf"
decision = "deny"
priority = 100
denyMessage = "Deletion is permanent"

[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandRegex = "npm (test|run lint)"
decision = "allow"
priority = 90

[[rule]]
commandPrefix = "git push"
decision = "ask_user"
priority = 200
`})
	noProblems(t, e)
	for _, tc := range []struct {
		command   string
		want      policy.Decision
		undecided []string
	}{
		{"rm -rf /", policy.Deny, nil},
		{"rm -rfv /", "", nil}, // a prefix ends at a word's end
		{"git status", policy.Allow, nil},
		{"git diff --stat", policy.Allow, nil},
		{"git statusx", "", nil},
		{"gitk", "", nil},
		{"npm test", policy.Allow, nil},
		{"npm run lint", policy.Allow, nil},
		{"echo npm test", "", nil},
		{"git push origin", policy.AskUser, nil},
		{"ls && rm -rf /", policy.Deny, nil},
		{"echo $(rm -rf /)", policy.Deny, nil},
		{"bash -c 'rm -rf /'", policy.Deny, nil},
		{`/bin/sh -c "ls; rm -rf /tmp/x"`, policy.Deny, nil},
		{"git status; git push", policy.AskUser, nil},
		{"git status && make", policy.Allow, []string{"make"}},
		{"git status > out.txt", policy.AskUser, nil}, // redirection asks
		{"ls", "", nil},
	} {
		v := e.Check(shell(tc.command))
		if v.Decision != tc.want || strings.Join(v.Undecided, "|") != strings.Join(tc.undecided, "|") {
			t.Errorf("%q: %s (undecided %q), want %q (undecided %q)", tc.command, v.Decision, v.Undecided, tc.want, tc.undecided)
		}
	}
	v := e.Check(shell("rm -rf /"))
	if v.Rule == nil || v.Rule.DenyMessage != "Deletion is permanent" || v.Rule.Source != "User: my-rules.toml" || v.Priority != 4.1 {
		t.Errorf("deny verdict %+v", v)
	}
	redirected := shell("git status > out.txt")
	redirected.Mode = policy.ModeAutoEdit
	if v := e.Check(redirected); v.Decision != policy.Allow {
		t.Errorf("a redirection in autoEdit: %s, want allow", v.Decision)
	}
}

// final_priority = tier + priority/1000: any admin rule outranks any user
// rule, which outranks workspace, extension and default ones; within a
// tier, the higher priority wins.
func TestTiersAndPriorities(t *testing.T) {
	rule := func(decision string, priority int) string {
		return `[[rule]]
toolName = "write_file"
decision = "` + decision + `"
priority = ` + strconv.Itoa(priority) + "\n"
	}
	sources := []policy.Source{
		{Tier: policy.TierDefault, Path: writeDir(t, map[string]string{"d.toml": rule("allow", 999)})},
		{Tier: policy.TierExtension, Path: writeDir(t, map[string]string{"e.toml": rule("ask_user", 999)}), Extension: "ext"},
		{Tier: policy.TierWorkspace, Path: writeDir(t, map[string]string{"w.toml": rule("allow", 10)})},
		{Tier: policy.TierUser, Path: writeDir(t, map[string]string{"u.toml": rule("ask_user", 100) + rule("allow", 5)})},
		{Tier: policy.TierAdmin, Path: writeDir(t, map[string]string{"a.toml": rule("deny", 20)})},
	}
	e := policy.Load(sources, true)
	noProblems(t, e)
	var got []string
	for _, r := range e.Rules() {
		got = append(got, r.Source+" "+string(r.Decision)+" "+strconv.FormatFloat(r.Priority, 'f', -1, 64))
	}
	want := []string{
		"Admin: a.toml deny 5.02",
		"User: u.toml ask_user 4.1",
		"User: u.toml allow 4.005",
		"Workspace: w.toml allow 3.01",
		"Extension (ext): e.toml ask_user 2.999",
		"Default: yolo.toml deny 1.999", // built in, loaded first
		"Default: yolo.toml deny 1.999",
		"Default: d.toml allow 1.999",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules by priority:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	call := policy.Call{Name: "write_file", Args: map[string]any{"file_path": "a"}, Mode: policy.ModeDefault}
	if v := e.Check(call); v.Decision != policy.Deny || v.Rule.Source != "Admin: a.toml" {
		t.Errorf("check = %+v, want the admin's deny", v)
	}
	// Without the admin's file, the user's higher priority wins.
	e = policy.Load(sources[:4], true)
	if v := e.Check(call); v.Decision != policy.AskUser || v.Priority != 4.1 {
		t.Errorf("check = %+v, want the user's ask_user at 4.1", v)
	}
}

// The docs' special syntax for MCP tools: mcpName with toolName, mcpName
// alone, mcpName "*", and the FQN wildcards.
func TestMCPRules(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		call       policy.Call
		want       bool
	}{
		{"mcpName and toolName", `mcpName = "my-jira-server"` + "\n" + `toolName = "search"`, mcp("my-jira-server", "search"), true},
		{"mcpName and toolName, other tool", `mcpName = "my-jira-server"` + "\n" + `toolName = "search"`, mcp("my-jira-server", "create"), false},
		{"mcpName and toolName, other server", `mcpName = "my-jira-server"` + "\n" + `toolName = "search"`, mcp("other", "search"), false},
		{"mcpName alone", `mcpName = "untrusted-server"`, mcp("untrusted-server", "anything"), true},
		{"mcpName alone, other server", `mcpName = "untrusted-server"`, mcp("trusted", "anything"), false},
		{"all MCP servers", `toolName = "*"` + "\n" + `mcpName = "*"`, mcp("any", "tool"), true},
		{"all MCP servers, not built-ins", `toolName = "*"` + "\n" + `mcpName = "*"`, shell("ls"), false},
		{"mcp_server_*", `toolName = "mcp_srv_*"`, mcp("srv", "lookup"), true},
		{"mcp_server_*, other server", `toolName = "mcp_srv_*"`, mcp("other", "lookup"), false},
		{"mcp_*", `toolName = "mcp_*"`, mcp("srv", "lookup"), true},
		{"mcp_*, not built-ins", `toolName = "mcp_*"`, shell("ls"), false},
		{"mcp_*_toolName", `toolName = "mcp_*_lookup"`, mcp("any", "lookup"), true},
		{"mcp_*_toolName, other tool", `toolName = "mcp_*_lookup"`, mcp("any", "search"), false},
		{"FQN", `toolName = "mcp_srv_lookup"`, mcp("srv", "lookup"), true},
		{"legacy server__tool", `toolName = "srv__lookup"`, mcp("srv", "lookup"), true},
		{"legacy server__*", `toolName = "srv__*"`, mcp("srv", "other"), true},
		{"* matches everything", `toolName = "*"`, shell("ls"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := load(t, policy.TierUser, true, map[string]string{"mcp.toml": "[[rule]]\n" + tc.rule + "\ndecision = \"allow\"\npriority = 200\n"})
			if got := e.Check(tc.call).Decision == policy.Allow; got != tc.want {
				t.Errorf("matches %s = %v, want %v (rules %+v)", tc.call.Name, got, tc.want, e.Rules()[0])
			}
		})
	}
}

// argsPattern is tested against the arguments as Gemini CLI's
// stableStringify writes them: keys sorted, top-level pairs between NUL
// bytes, as plan.toml's patterns expect.
func TestArgsPattern(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"args.toml": `
[[rule]]
toolName = "run_shell_command"
argsPattern = '"command":"(git|npm)'
decision = "allow"
priority = 10

[[rule]]
toolName = ["write_file", "replace"]
argsPattern = "\\x00\"file_path\":\"[^\"]+/plans/[\\w-]+\\.md\"\\x00"
decision = "allow"
priority = 10
`})
	noProblems(t, e)
	for _, tc := range []struct {
		call policy.Call
		want policy.Decision
	}{
		{shell("npm install"), policy.Allow},
		{shell("yarn"), ""},
		{policy.Call{Name: "write_file", Args: map[string]any{"content": `"file_path":"/x/plans/a.md"`, "file_path": "/src/main.go"}}, ""},
		{policy.Call{Name: "replace", Args: map[string]any{"file_path": "/tmp/plans/plan-1.md", "old_string": "a"}}, policy.Allow},
		{policy.Call{Name: "write_file"}, ""}, // no arguments: no match
	} {
		if v := e.Check(tc.call); v.Decision != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.call.Name, tc.call.Args, v.Decision, tc.want)
		}
	}
}

// modes and interactive restrict where a rule applies; toolAnnotations
// must all be present in the tool's.
func TestModesInteractiveAndAnnotations(t *testing.T) {
	files := map[string]string{"r.toml": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "npm test"
decision = "allow"
priority = 100
modes = ["default", "autoEdit"]

[[rule]]
toolName = "web_fetch"
decision = "deny"
priority = 10
interactive = false

[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
modes = ["plan"]
`}
	interactive, headless := load(t, policy.TierUser, true, files), load(t, policy.TierUser, false, files)
	plan := shell("npm test")
	plan.Mode = policy.ModePlan
	if v := interactive.Check(shell("npm test")); v.Decision != policy.Allow {
		t.Errorf("npm test in default mode: %q", v.Decision)
	}
	if v := interactive.Check(plan); v.Decision != "" {
		t.Errorf("npm test in plan mode: %q, want no rule", v.Decision)
	}
	fetch := policy.Call{Name: "web_fetch", Args: map[string]any{"prompt": "x"}, Mode: policy.ModeDefault}
	if interactive.Check(fetch).Decision != "" || headless.Check(fetch).Decision != policy.Deny {
		t.Error("interactive = false applies to headless sessions alone")
	}
	readOnly := mcp("srv", "list")
	readOnly.Mode, readOnly.Annotations = policy.ModePlan, map[string]any{"readOnlyHint": true, "title": "List"}
	writes := readOnly
	writes.Annotations = map[string]any{"readOnlyHint": false}
	if interactive.Check(readOnly).Decision != policy.Allow || interactive.Check(writes).Decision != "" {
		t.Error("toolAnnotations: want the read-only tool allowed, the other not")
	}
}

// A file that is not TOML is reported by its path and skipped; a rule
// that is wrong is reported with its number and the file's other rules
// kept; an extension's allow and yolo rules are dropped and reported.
func TestMalformedFilesAndRulesAreReported(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"broken.toml": "[[rule]\ntoolName = ",
		"mixed.toml": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = ["run_shell_command", "write_file"]
commandPrefix = "git"
decision = "allow"
priority = 10

[[rule]]
toolName = "write_file"
decision = "maybe"
priority = 10

[[rule]]
toolName = "write_file"
decision = "deny"
priority = 1000

[[rule]]
toolName = "read_file"
argsPattern = "(unclosed"
decision = "deny"
priority = 1

[[rule]]
toolName = "glob"
decison = "deny"
decision = "deny"
priority = 1
`,
		"notes.txt": "not a policy",
	})
	ext := writeDir(t, map[string]string{"policies.toml": `
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 1

[[rule]]
toolName = "write_file"
decision = "ask_user"
modes = ["yolo"]
priority = 1

[[rule]]
mcpName = "my_server"
toolName = "dangerous_tool"
decision = "ask_user"
priority = 100
`})
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}, {Tier: policy.TierExtension, Path: ext, Extension: "tools-ext"}}, true)
	var problems []string
	for _, p := range e.Problems() {
		problems = append(problems, p.String())
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{
		"[USER] Policy file error in " + filepath.Join(dir, "broken.toml") + ": TOML parsing failed",
		filepath.Join(dir, "mixed.toml") + " (rule #2): Invalid policy rule: commandPrefix and commandRegex can only be used with toolName = \"run_shell_command\"",
		"(rule #3): Invalid policy rule: Field \"decision\": \"maybe\" is not",
		"(rule #4): Invalid policy rule: Field \"priority\": 1000 is not within 0..999",
		"(rule #5): Invalid policy rule: Invalid regex pattern",
		"[USER] Policy file warning in " + filepath.Join(dir, "mixed.toml") + " (rule #6): Unknown field \"decison\" was ignored",
		"[EXTENSION] Policy file warning in " + filepath.Join(ext, "policies.toml") + " (rule #1): Extension \"tools-ext\" attempted to contribute an ALLOW rule",
		"(rule #2): Extension \"tools-ext\" attempted to contribute a rule for YOLO mode",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem says %q; problems:\n%s", want, all)
		}
	}
	var kept []string
	for _, r := range fromFiles(e) {
		kept = append(kept, r.Source+" "+r.ToolName+" "+string(r.Decision))
	}
	want := "User: mixed.toml run_shell_command deny|User: mixed.toml glob deny|Extension (tools-ext): policies.toml mcp_my_server_dangerous_tool ask_user"
	if strings.Join(kept, "|") != want {
		t.Errorf("kept %q, want %q", strings.Join(kept, "|"), want)
	}
}

// /policies list shows the rules by mode as Gemini CLI does, the
// built-in default rules included, and the problems.
func TestList(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"r.toml": `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 5
modes = ["autoEdit"]

[[rule]]
toolName = "glob"
decision = "sometimes"
priority = 5
`})
	got := e.List()
	for _, want := range []string{
		"**Active Policies**\n\n### Normal Mode Policies\n1. **ALLOW** tool: `run_shell_command` (args match: `" + `\"command\":\"git(?:[\s"]|\\")` + "`) [Priority: 4.1] [Source: User: r.toml]\n\n",
		"### Auto Edit Mode Policies (combined with normal mode policies)\n1. **ASK_USER** tool: `write_file` [Priority: 4.005] [Source: User: r.toml]\n\n",
		"### Yolo Mode Policies (combined with normal mode policies)\n1. **DENY** tool: `enter_plan_mode` [Priority: 1.999] [Source: Default: yolo.toml]\n2. **DENY** tool: `exit_plan_mode` [Priority: 1.999] [Source: Default: yolo.toml]\n\n",
		"### Problems\n- [USER] Policy file error in ",
		"r.toml (rule #3)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("list lacks %q:\n%s", want, got)
		}
	}
	if got := (*policy.Engine)(nil).List(); !strings.HasPrefix(got, "No active policies.") {
		t.Errorf("no engine: %q", got)
	}
}

// Excludes leaves out a tool a rule denies whatever its arguments, as
// Gemini CLI's getExcludedTools: a rule allowing some arguments above it
// keeps the tool; a rule denying some arguments is passed over.
func TestExcludes(t *testing.T) {
	e := load(t, policy.TierUser, true, map[string]string{"r.toml": `
[[rule]]
toolName = "write_file"
argsPattern = "docs/"
decision = "allow"
priority = 200

[[rule]]
toolName = ["write_file", "replace", "glob"]
decision = "deny"
priority = 100

[[rule]]
toolName = "replace"
argsPattern = "secret"
decision = "deny"
priority = 300

[[rule]]
toolName = "glob"
decision = "allow"
priority = 150
modes = ["yolo"]

[[rule]]
commandPrefix = "git status"
decision = "allow"
priority = 200

[[rule]]
toolName = "run_shell_command"
decision = "deny"
priority = 100
`})
	for _, tc := range []struct {
		name string
		mode policy.Mode
		want bool
	}{
		{"write_file", policy.ModeDefault, false},
		{"replace", policy.ModeDefault, true},
		{"glob", policy.ModeDefault, true},
		{"glob", policy.ModeYolo, false},
		{"read_file", policy.ModeDefault, false},
		{tools.ShellName, policy.ModeDefault, false}, // git status is allowed
	} {
		if got := e.Excludes(policy.Call{Name: tc.name, Mode: tc.mode}, 0); got != tc.want {
			t.Errorf("Excludes(%s in %s) = %v, want %v", tc.name, tc.mode, got, tc.want)
		}
	}
}

// Gemini CLI 0.61's yolo.toml denies the planning tools in yolo for
// interactive sessions only: every engine has that rule, whatever the
// files, so an editor's yolo refuses plan mode and does not declare it,
// while a headless yolo run may plan.
func TestDefaultYoloRuleFollowsInteractivity(t *testing.T) {
	interactive, headless := policy.Load(nil, true), policy.Load(nil, false)
	noProblems(t, interactive)
	for _, name := range []string{"enter_plan_mode", "exit_plan_mode"} {
		yolo := policy.Call{Name: name, Mode: policy.ModeYolo}
		if !interactive.Excludes(yolo, 0) {
			t.Errorf("interactive yolo: %s not excluded, want yolo.toml's deny at 1.999", name)
		}
		if v := interactive.Check(yolo); v.Decision != policy.Deny {
			t.Errorf("interactive yolo: %s decided %q, want deny", name, v.Decision)
		}
		if headless.Excludes(yolo, 0) {
			t.Errorf("headless yolo: %s excluded", name)
		}
		if v := headless.Check(yolo); v.Decision != "" {
			t.Errorf("headless yolo: %s decided %q, want no rule", name, v.Decision)
		}
		other := policy.Call{Name: name, Mode: policy.ModeDefault}
		if interactive.Check(other).Decision != "" {
			t.Errorf("interactive default mode: a rule decides %s", name)
		}
	}
}

// tools.confirmationRequired's rules ask in every mode, yolo's too, over
// a user's allow rule of the highest priority a file can give (4.999 is
// below them only by tier: theirs is 4.35, above tools.allowed's 4.3),
// for the shell tool by either of its names; other tools are untouched.
func TestConfirmationRequiredAsksInEveryMode(t *testing.T) {
	e := policy.Load(nil, true, policy.ConfirmationRequired([]string{"ShellTool", "mcp_gh_push"})...)
	noProblems(t, e)
	for _, mode := range []policy.Mode{policy.ModeDefault, policy.ModeAutoEdit, policy.ModeYolo, policy.ModePlan} {
		for _, name := range []string{tools.ShellName, "mcp_gh_push"} {
			v := e.Check(policy.Call{Name: name, Args: map[string]any{"command": "git push"}, Mode: mode})
			if v.Decision != policy.AskUser || v.Priority != 4.35 || v.Rule.Source != "Settings (Confirmation Required)" {
				t.Errorf("%s in %s: %+v, want ask_user at 4.35", name, mode, v)
			}
		}
	}
	if v := e.Check(policy.Call{Name: "read_file", Mode: policy.ModeYolo}); v.Decision == policy.AskUser {
		t.Errorf("read_file in yolo: %+v, asked", v)
	}
}
