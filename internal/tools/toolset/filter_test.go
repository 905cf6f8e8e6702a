package toolset

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// build makes a Set over an empty workspace with these tool settings.
func build(t *testing.T, s settings.Tools) *Set {
	t.Helper()
	return buildIn(t, s, osshell.Shell{})
}

// buildIn is build whose shell tool runs its commands in sh (the local
// shell when zero).
func buildIn(t *testing.T, s settings.Tools, sh osshell.Shell) *Set {
	t.Helper()
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := tools.Options{Workspace: ws}
	opts.Shell.Shell = sh
	set := Build(t.Context(), Config{Tools: opts, Settings: settings.Settings{Tools: s}, Getenv: func(string) string { return "" }})
	t.Cleanup(set.Close)
	return set
}

// allBuiltin are the tools a set built with no settings has, by name.
var allBuiltin = slices.Sorted(slices.Values(tools.AlwaysNames()))

func TestCoreKeepsOnlyTheListedBuiltinTools(t *testing.T) {
	if got := build(t, settings.Tools{}).Registry.Names(); !slices.Equal(got, allBuiltin) {
		t.Fatalf("without tools.core: %q", got)
	}
	// A name, a Gemini CLI class name, a name with (…).
	got := build(t, settings.Tools{Core: []string{"read_file", "EditTool", "glob(*.go)", "nonexistent"}}).Registry.Names()
	if want := []string{"glob", "read_file", "replace"}; !slices.Equal(got, want) {
		t.Errorf("tools.core: %q, want %q", got, want)
	}
	if got := build(t, settings.Tools{Core: []string{}}).Registry.Names(); len(got) != 0 {
		t.Errorf("tools.core []: %q, want no built-in tool", got)
	}
}

func TestExcludeRemovesBuiltinTools(t *testing.T) {
	got := build(t, settings.Tools{
		Core:    []string{"read_file", "run_shell_command", "grep_search", "web_fetch"},
		Exclude: []string{"ShellTool", "search_file_content", "web_fetch"},
	}).Registry.Names()
	if want := []string{"read_file"}; !slices.Equal(got, want) {
		t.Errorf("tools.exclude: %q, want %q (exclude wins over core)", got, want)
	}
}

// A tool's other names are its own to say (tools.Spec.Aliases):
// tools.core and tools.exclude find a tool no list here names by them.
func TestSettingsNameAToolByItsAliases(t *testing.T) {
	probe := tools.Define(tools.Spec{Name: "probe", Aliases: []string{"ProbeTool"}}, func(struct{}) (tools.Call, error) { return nil, nil })
	other := tools.Define(tools.Spec{Name: "other"}, func(struct{}) (tools.Call, error) { return nil, nil })
	names := func(kept []tools.Tool) []string {
		var out []string
		for _, t := range kept {
			out = append(out, t.Name())
		}
		return out
	}
	if got := names(newFilter(settings.Tools{Core: []string{"ProbeTool"}}, osshell.Bash).builtin([]tools.Tool{probe, other})); !slices.Equal(got, []string{"probe"}) {
		t.Errorf("tools.core [ProbeTool] kept %q", got)
	}
	if got := names(newFilter(settings.Tools{Exclude: []string{"ProbeTool"}}, osshell.Bash).builtin([]tools.Tool{probe, other})); !slices.Equal(got, []string{"other"}) {
		t.Errorf("tools.exclude [ProbeTool] kept %q", got)
	}
}

// update_topic is offered as Gemini CLI 0.61 offers it: while
// general.topicUpdateNarration, else experimental.topicUpdateNarration,
// is not false.
func TestTopicUpdateNarration(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		general, experimental *bool
		want                  bool
	}{{nil, nil, true}, {new(false), nil, false}, {nil, new(false), false}, {new(true), new(false), true}, {new(false), new(true), false}} {
		var s settings.Settings
		s.General.TopicUpdateNarration, s.Experimental.TopicUpdateNarration = c.general, c.experimental
		set := Build(t.Context(), Config{Tools: tools.Options{Workspace: ws}, Settings: s, Getenv: func(string) string { return "" }})
		if _, got := set.Registry.Get(tools.UpdateTopicName); got != c.want {
			t.Errorf("general %v, experimental %v: update_topic offered %v, want %v", c.general, c.experimental, got, c.want)
		}
		set.Close()
	}
}

// useWriteTodos: false takes write_todos away, as Gemini CLI does; its
// class name counts in tools.core.
func TestUseWriteTodos(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		use  *bool
		want bool
	}{{nil, true}, {new(true), true}, {new(false), false}} {
		set := Build(t.Context(), Config{Tools: tools.Options{Workspace: ws}, Settings: settings.Settings{UseWriteTodos: c.use}, Getenv: func(string) string { return "" }})
		if _, got := set.Registry.Get("write_todos"); got != c.want {
			t.Errorf("useWriteTodos %v: write_todos offered %v, want %v", c.use, got, c.want)
		}
		set.Close()
	}
	if got := build(t, settings.Tools{Core: []string{"WriteTodosTool"}}).Registry.Names(); !slices.Equal(got, []string{"write_todos"}) {
		t.Errorf("tools.core [WriteTodosTool]: %q", got)
	}
}

func TestExcludeRemovesDiscoveredTools(t *testing.T) {
	platformtest.Unix(t, "sh to run the discovery script ../discovered/testdata/discover.sh")
	discover, err := filepath.Abs("../discovered/testdata/discover.sh")
	if err != nil {
		t.Fatal(err)
	}
	set := build(t, settings.Tools{
		Core:             []string{"read_file"},
		DiscoveryCommand: discover,
		CallCommand:      "true",
		Exclude:          []string{"echo", "discovered_tool_fail"},
	})
	got := set.Registry.Names()
	if want := []string{"discovered_tool_hang", "discovered_tool_killed", "discovered_tool_warn", "read_file"}; !slices.Equal(got, want) {
		t.Errorf("discovered tools less tools.exclude: %q, want %q", got, want)
	}
	if _, ok := set.Registry.Get("discovered_tool_echo"); ok {
		t.Error("an excluded discovered tool can still be called")
	}
}

// fakeMCPTool is a tool of an MCP server, named as the registry names it.
type fakeMCPTool struct{ name, server, remote string }

func (f fakeMCPTool) Name() string { return f.name }
func (f fakeMCPTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: f.name}
}
func (f fakeMCPTool) Build(map[string]any) (tools.Call, error) {
	return nil, errors.New("not callable")
}
func (f fakeMCPTool) MCPOrigin() (server, tool string) { return f.server, f.remote }

type fakeSource []tools.Tool

func (s fakeSource) Tools() []tools.Tool { return s }

func TestExcludeRemovesMCPToolsByAnyOfTheirNames(t *testing.T) {
	src := fakeSource{
		fakeMCPTool{name: "search", server: "docs", remote: "search"},
		fakeMCPTool{name: "gh__search", server: "gh", remote: "search"}, // qualified: the name was taken
		fakeMCPTool{name: "open_issue", server: "gh", remote: "open_issue"},
		fakeMCPTool{name: "list", server: "gh", remote: "list"},
	}
	for exclude, want := range map[string][]string{
		"search":              {"open_issue", "list"}, // the server's name for it, on every server
		"gh__search":          {"search", "open_issue", "list"},
		"mcp_gh_open_issue":   {"search", "gh__search", "list"},
		"docs__search":        {"gh__search", "open_issue", "list"},
		"mcp_docs_open_issue": {"search", "gh__search", "open_issue", "list"},
	} {
		s := filteredSource{Source: src, filter: newFilter(settings.Tools{Exclude: []string{exclude}}, osshell.Bash)}
		var got []string
		for _, tool := range s.Tools() {
			got = append(got, tool.Name())
		}
		if !slices.Equal(got, want) {
			t.Errorf("exclude %q: %q, want %q", exclude, got, want)
		}
	}
}

var (
	bash       = osshell.Shell{Kind: osshell.Bash, Executable: "bash", Args: []string{"-c"}}
	powerShell = osshell.Shell{Kind: osshell.PowerShell, Executable: "powershell.exe", Args: []string{"-NoProfile", "-NonInteractive", "-Command"}}
	cmd        = osshell.Shell{Kind: osshell.Cmd, Executable: "cmd.exe", Args: []string{"/d", "/s", "/c"}}
)

// A Windows shell's lines are read in its own language, not bash's: what
// PowerShell or cmd.exe would run is what must start with a prefix.
func TestCoreRestrictsTheWindowsShellsToCommands(t *testing.T) {
	for _, tc := range []struct {
		shell osshell.Shell
		lines map[string]bool
	}{
		{powerShell, map[string]bool{
			"git status":                   true,
			"git status; git diff":         true,
			"npm test -- --watch":          true,
			`"git" log --oneline`:          false, // a string, not a command
			"git status; Remove-Item x":    false,
			"git status | Out-File x":      false,
			"git log $(Remove-Item x)":     false,
			"$env:GIT_DIR='x'; git status": false,
			"gitk":                         false,
			"npm install":                  false,
		}},
		{cmd, map[string]bool{
			"git status":             true,
			"git status & git diff":  true,
			"git status && del x":    false,
			"git log > out.txt":      false,
			"git log %COMSPEC%":      false,
			"npm install":            false,
			"git status | findstr M": false,
			"git status #& del x":    false, // # is no comment to cmd.exe: del runs
		}},
	} {
		set := buildIn(t, settings.Tools{Core: []string{"run_shell_command(git)", "ShellTool(npm test)"}}, tc.shell)
		shell, _ := set.Registry.Get(tools.ShellName)
		for command, allowed := range tc.lines {
			_, err := shell.Build(map[string]any{"command": command})
			if (err == nil) != allowed {
				t.Errorf("%s: %q: error %v, want allowed=%v", tc.shell.Kind, command, err, allowed)
			}
		}
	}
}

// The lines are bash's, read as bash reads them on every system.
func TestCoreRestrictsTheShellToCommands(t *testing.T) {
	set := buildIn(t, settings.Tools{Core: []string{"run_shell_command(git)", "ShellTool(npm test)"}}, bash)
	shell, ok := set.Registry.Get(tools.ShellName)
	if !ok {
		t.Fatal("run_shell_command(…) in tools.core left the shell out")
	}
	if a := tools.AnnotationsOf(shell); !a.RunsCommands {
		t.Errorf("the restricted shell says it is %+v: it still runs commands", a)
	}
	for command, allowed := range map[string]bool{
		"git status":                                 true,
		`"git" log --oneline`:                        true,
		"git status && git diff":                     true,
		"FOO=1 git status":                           false,
		"PATH=/tmp/evil git status":                  false,
		"git status && PATH=/tmp/evil && git status": false,
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=x; git status": false,
		`npm test"x"`:               false,
		`git "status"`:              true,
		"git log ~":                 false,
		"npm test":                  true,
		"npm test -- --watch":       true,
		"npm install":               false,
		"gitk":                      false,
		"git status && rm -rf x":    false,
		"echo hi | git apply":       false,
		"git log $(rm -rf x)":       false,
		"git log > out.txt":         false,
		"f() { git status; }; f":    false,
		"export GIT_DIR=x; git log": false,
		"git log; `rm x`":           false,
	} {
		_, err := shell.Build(map[string]any{"command": command})
		if (err == nil) != allowed {
			t.Errorf("%q: error %v, want allowed=%v", command, err, allowed)
		}
		if err != nil && !strings.Contains(err.Error(), "tools.core") {
			t.Errorf("%q: the refusal does not say which setting: %v", command, err)
		}
	}

	// The plain name, too, leaves the shell unrestricted.
	set = build(t, settings.Tools{Core: []string{"run_shell_command(git)", "run_shell_command"}})
	shell, _ = set.Registry.Get(tools.ShellName)
	if _, err := shell.Build(map[string]any{"command": "rm -rf x"}); err != nil {
		t.Errorf("unrestricted shell refused: %v", err)
	}
}

func TestParseAllowed(t *testing.T) {
	servers := map[string]settings.MCPServer{"gh": {}, "gh_enterprise": {}}
	got := ParseAllowed([]string{
		"run_shell_command(git)",
		"ShellTool(npm)",
		"run_shell_command(git status)",
		"read_file",
		"EditTool",
		"write_file(anything)",
		"run_shell_command",
		"mcp_gh_open_issue",
		"mcp_gh_enterprise_search",
		"gh__list",
		"mcp_gh_*",
		"discovered_tool_lint",
		"my_tool",
		"run_shell_command(edit)",
		"run_shell_command(mcp:gh:open_issue)",
	}, servers)
	wantTools := []string{"read_file", "replace", "write_file", "run_shell_command", "discovered_tool_lint", "my_tool"}
	wantKeys := []string{"git", "npm", "mcp:gh:open_issue", "mcp:gh_enterprise:search", "mcp:gh:list"}
	if !reflect.DeepEqual(got.Tools, wantTools) || !reflect.DeepEqual(got.Keys, wantKeys) {
		t.Errorf("ParseAllowed:\n tools %q\n  want %q\n keys  %q\n  want %q", got.Tools, wantTools, got.Keys, wantKeys)
	}
	if len(got.Unsupported) != 4 ||
		!strings.Contains(got.Unsupported[0].Error(), `"run_shell_command(git status)"`) ||
		!strings.Contains(got.Unsupported[1].Error(), `"trust": true on the server "gh"`) ||
		!strings.Contains(got.Unsupported[2].Error(), `"run_shell_command(edit)": edit is named as gemini-ls names other approvals`) ||
		!strings.Contains(got.Unsupported[3].Error(), `mcp:gh:open_issue is named as`) {
		t.Errorf("unsupported = %v", got.Unsupported)
	}
}
