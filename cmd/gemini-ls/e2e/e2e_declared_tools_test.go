package e2e

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// oursAlone are the tools gemini-ls declares that Gemini CLI 0.61 has
// not: its own (docs/configuration.md), declared where they work, and
// save_memory, which 0.61 no longer has and which is being removed from
// gemini-ls apart from this change. The comparisons set them aside.
var oursAlone = [...]string{"get_diagnostics", "navigate_code", "rename_symbol", "save_memory"}

// firstDeclared are the function names the first model request
// declared, sorted, less oursAlone.
func firstDeclared(reqs []geminitest.Request) []string {
	return declaredSince(reqs, 0)
}

// declaredSince is firstDeclared of the requests from the from-th on.
func declaredSince(reqs []geminitest.Request, from int) []string {
	for _, r := range reqs[min(from, len(reqs)):] {
		if r.Method == "streamGenerateContent" {
			names := slices.DeleteFunc(declaredNames(r), func(n string) bool { return slices.Contains(oursAlone[:], n) })
			slices.Sort(names)
			return names
		}
	}
	return nil
}

// toolsHome is a home whose settings are geminiCLIHome's with settings'
// extra top-level entries ("" for none; "tracker" turns
// experimental.taskTracker on), and files beside them (a user policy in
// .gemini/policies).
func toolsHome(t *testing.T, project, extra string, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	writeToolsHome(t, home, project, extra, files)
	return home
}

// writeToolsHome writes toolsHome's files into home, which trusts
// project.
func writeToolsHome(t *testing.T, home, project, extra string, files map[string]string) {
	t.Helper()
	trustFolder(t, home, project)
	experimental := ""
	if extra == "tracker" {
		extra, experimental = "", `, "taskTracker": true`
	}
	if extra != "" {
		extra += ",\n"
	}
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{
  ` + extra + `"security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"name": "gemini-2.5-pro", "skipNextSpeakerCheck": true},
  "experimental": {"useModelRouter": false` + experimental + `},
  "general": {"disableAutoUpdate": true}
}`})
	writeFiles(t, home, files)
}

// Headless, gemini-ls declares the tools Gemini CLI 0.61 declares under
// the same settings, in each approval mode: 0.61 leaves out what its
// policy would not let run without asking, since nobody can be asked
// (getExcludedTools, its default decision deny), and ask_user. Both run
// `-p hi` against the fake model with the same home; gemini-ls's PATH
// holds no language server, so navigate_code is not there either way.
func TestHeadlessDeclaresGeminiCLIsTools(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{"a.txt": "a\n"})
	allowShell := map[string]string{".gemini/policies/shell.toml": `
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
modes = ["default"]
`}
	for _, tc := range []struct {
		name     string
		args     []string
		settings string
		files    map[string]string
	}{
		{name: "default"},
		{name: "yolo", args: []string{"--approval-mode", "yolo"}},
		{name: "auto_edit", args: []string{"--approval-mode", "auto_edit"}},
		{name: "plan", args: []string{"--approval-mode", "plan"}},
		{name: "policy allows the shell", files: allowShell},
		{name: "tools.allowed", settings: `"tools": {"allowed": ["write_file", "run_shell_command(git)"]}`},
		{name: "tools.exclude", args: []string{"--approval-mode", "yolo"}, settings: `"tools": {"exclude": ["glob", "ShellTool"]}`},
		// tools.core names read_file and write_file only as tools, not
		// by class names: 0.61 also makes it an allowing policy rule by
		// name, which gemini-ls does not (docs/configuration.md), so
		// they are offered where they run unasked all the same.
		{name: "tools.core", settings: `"tools": {"core": ["read_file", "write_file"]}`, args: []string{"--approval-mode", "auto_edit"}},
		{name: "tools.exclude invoke_agent", settings: `"tools": {"exclude": ["AgentTool"]}`},
		{name: "experimental.taskTracker", settings: "tracker"},
		{name: "experimental.taskTracker in plan mode", args: []string{"--approval-mode", "plan"}, settings: "tracker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turns := func() []geminitest.Turn { return []geminitest.Turn{{Chunks: []geminitest.Chunk{{Text: "ok"}}}} }
			home := toolsHome(t, project, tc.settings, tc.files)

			model := geminitest.NewTestServer(t, turns()...)
			cmd := geminicli.Command(t, home, project, model.URL, append([]string{"-p", "hi"}, tc.args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("gemini: %v\n%s", err, stderr.String())
			}
			theirs := firstDeclared(model.Requests())

			h := newHeadless(t, nil, turns()...)
			env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL=", "PATH=/usr/bin:/bin")
			r := h.runIn(project, env, append([]string{"run", "-p", "hi"}, tc.args...)...)
			r.wantExit(t, 0)
			ours := firstDeclared(h.model.Requests())
			if !slices.Equal(ours, theirs) {
				t.Errorf("declared tools:\n 0.61:      %q\n gemini-ls: %q", theirs, ours)
			}
		})
	}
}
