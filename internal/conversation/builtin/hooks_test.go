package builtin_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// markCommand is a command, in sh's language, that adds a line "ran" to
// the project's file (hooks run in the project) each time it runs.
func markCommand(sh osshell.Shell, file string) string {
	switch sh.Kind {
	case osshell.PowerShell:
		// Not >>, which writes UTF-16 in Windows PowerShell.
		return "Add-Content -Path " + sh.Quote(file) + " -Value ran"
	case osshell.Cmd:
		return "echo ran>>" + sh.Quote(file)
	}
	return `echo ran >> "$GEMINI_PROJECT_DIR/` + file + `"`
}

// markHook is a hook that runs markCommand in sh.
func markHook(sh osshell.Shell, name, file string) string {
	cmd := strconv.Quote(markCommand(sh, file))
	if name == "" {
		return `{"type": "command", "command": ` + cmd + `}`
	}
	return `{"type": "command", "name": "` + name + `", "command": ` + cmd + `}`
}

// hookProject is settings (with a comment, to be kept) whose BeforeAgent
// hook "marker" writes marker.txt and whose unnamed AfterAgent hook
// writes other.txt.
func hookProject(sh osshell.Shell) string {
	return "{\n  // the project's hooks\n  \"hooks\": {\n" +
		`    "BeforeAgent": [{"hooks": [` + markHook(sh, "marker", "marker.txt") + "]}],\n" +
		`    "AfterAgent": [{"matcher": "*", "hooks": [` + markHook(sh, "", "other.txt") + "]}]\n" +
		"  }\n}\n"
}

// runs is how many times the hook writing file ran.
func (h *harness) runs(file string) int {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.root, file))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return strings.Count(string(b), "ran")
}

// promptCounting prompts in env and reports how many times each hook ran
// for it.
func (h *harness) promptCounting(env builtin.Env) (marker, other int) {
	h.t.Helper()
	m, o := h.runs("marker.txt"), h.runs("other.txt")
	h.prompt(env, "hello")
	return h.runs("marker.txt") - m, h.runs("other.txt") - o
}

// /hooks (panel) lists every hook configured, by event, with its status
// and what it was configured with, in Gemini CLI 0.61's words.
func TestHooksPanel(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/settings.json", `{"hooksConfig": {"disabled": ["guard"]}, "hooks": {"BeforeTool": [
		{"matcher": "run_shell_command", "sequential": true, "hooks": [{"type": "command", "name": "guard", "description": "Blocks   rm", "command": "sh guard.sh", "timeout": 1500}]}]}}`)
	h.write(".gemini/settings.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo `+"`date`"+`"}]}]}}`)
	env := h.conversation()
	want := "**Security Warning:** Hooks can execute arbitrary commands on your system. Only use hooks from sources you trust. Review hook scripts carefully.\n\n" +
		"Learn more: https://geminicli.com/docs/hooks\n\n**Configured Hooks**\n\n" +
		"**BeforeTool**\n\n" +
		"- **`guard`** [disabled]\n  *Blocks rm*\n  Source: settings | Command: `sh guard.sh` | Matcher: `run_shell_command` | Sequential | Timeout: 1.5s\n\n" +
		"**SessionStart**\n\n" +
		"- **`` echo `date` ``** [enabled]\n  Source: settings\n\n" +
		"Tip: Use `/hooks enable <hook-name>` or `/hooks disable <hook-name>` to toggle individual hooks. Use `/hooks enable-all` or `/hooks disable-all` to toggle all hooks at once."
	for _, line := range []string{"/hooks", "/hooks panel", "/hooks list", "/hooks show"} {
		if got := h.answer(env, line); got != want {
			t.Errorf("%s =\n%s\nwant\n%s", line, got, want)
		}
	}
	if err := h.fails(env, "/hooks panel all"); !strings.Contains(err.Error(), "usage: /hooks panel") {
		t.Errorf("/hooks panel all: %v", err)
	}
	if err := h.fails(env, "/hooks remove guard"); !strings.Contains(err.Error(), "usage: /hooks panel | enable <hook-name> | disable <hook-name> | enable-all | disable-all") {
		t.Errorf("/hooks remove: %v", err)
	}
}

// With none configured, or hooks off, /hooks says so.
func TestHooksNoneOrOff(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	for _, line := range []string{"/hooks", "/hooks enable-all", "/hooks disable-all"} {
		if got := h.answer(env, line); got != "No hooks configured." {
			t.Errorf("%s = %q", line, got)
		}
	}
	h.write("~/.gemini/settings.json", `{"hooksConfig": {"enabled": false}, "hooks": {"BeforeAgent": [{"hooks": [`+markHook(osshell.Local(), "marker", "marker.txt")+`]}]}}`)
	env = h.conversation()
	if got := h.answer(env, "/hooks"); !strings.HasPrefix(got, "Hooks are off: `hooksConfig.enabled` is false") {
		t.Errorf("/hooks with hooks off = %q", got)
	}
	for _, line := range []string{"/hooks disable marker", "/hooks enable marker", "/hooks disable-all", "/hooks enable-all"} {
		if err := h.fails(env, line); err.Error() != "Hook system is not enabled: hooksConfig.enabled is false in the settings." {
			t.Errorf("%s with hooks off: %v", line, err)
		}
	}
}

// /hooks disable records the hook in the workspace's hooksConfig.disabled,
// as 0.61 does, keeping the rest of the file; the hook does not run from
// the next prompt on, nor in the next process, until /hooks enable.
func TestHooksDisableEnable(t *testing.T) {
	sh := platformtest.LocalShell(t)
	h := newHarness(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"), geminitest.TextTurn("four"))
	file := h.write(".gemini/settings.json", hookProject(sh))
	env := h.conversation()
	if m, o := h.promptCounting(env); m != 1 || o != 1 {
		t.Fatalf("before /hooks disable the hooks ran %d and %d times, want once each", m, o)
	}

	if got, want := h.answer(env, "/hooks disable marker"), `Hook "marker" disabled by adding it to the disabled list in workspace (`+file+`) settings.`; got != want {
		t.Errorf("/hooks disable =\n%s\nwant\n%s", got, want)
	}
	// As 0.61 writes it: the comment kept, the rest re-indented, the new
	// member last.
	if got := readText(t, file); !strings.HasPrefix(got, "{\n  // the project's hooks\n  \"hooks\": {\n    \"BeforeAgent\": [\n      {\n") ||
		!strings.HasSuffix(got, "  },\n  \"hooksConfig\": {\n    \"disabled\": [\n      \"marker\"\n    ]\n  }\n}") {
		t.Errorf("the workspace's settings =\n%s", got)
	}
	if got := h.answer(env, "/hooks disable marker"); got != `Hook "marker" is already disabled.` {
		t.Errorf("again: %q", got)
	}
	if m, o := h.promptCounting(env); m != 0 || o != 1 {
		t.Errorf("after /hooks disable marker ran %d times, the other %d; want 0 and 1", m, o)
	}

	next := h.conversation()
	if got := h.answer(next, "/hooks"); !strings.Contains(got, "- **`marker`** [disabled]") {
		t.Errorf("/hooks in the next process =\n%s", got)
	}
	if m, o := h.promptCounting(next); m != 0 || o != 1 {
		t.Errorf("in the next process marker ran %d times, the other %d; want 0 and 1", m, o)
	}
	if got, want := h.answer(next, "/hooks enable marker"), `Hook "marker" enabled by removing it from the disabled list in workspace (`+file+`) settings.`; got != want {
		t.Errorf("/hooks enable =\n%s\nwant\n%s", got, want)
	}
	if got := h.answer(next, "/hooks enable marker"); got != `Hook "marker" is already enabled.` {
		t.Errorf("again: %q", got)
	}
	if m, _ := h.promptCounting(next); m != 1 {
		t.Errorf("after /hooks enable marker ran %d times, want once", m)
	}
	if err := h.fails(next, "/hooks disable"); !strings.Contains(err.Error(), "usage: /hooks disable <hook-name>") {
		t.Errorf("/hooks disable without a name: %v", err)
	}
}

// /hooks disable-all writes every hook's name (an unnamed one's command)
// as the workspace's hooksConfig.disabled, and none runs; /hooks
// enable-all empties the lists, and all run again.
func TestHooksDisableAllEnableAll(t *testing.T) {
	sh := platformtest.LocalShell(t)
	h := newHarness(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	file := h.write(".gemini/settings.json", hookProject(sh))
	h.write("~/.gemini/settings.json", `{"hooksConfig": {"disabled": ["marker"]}}`)
	env := h.conversation()
	if m, o := h.promptCounting(env); m != 0 || o != 1 {
		t.Fatalf("with marker disabled in the user's settings the hooks ran %d and %d times", m, o)
	}
	if got := h.answer(env, "/hooks disable-all"); got != "Disabled 1 hook(s) successfully." {
		t.Errorf("/hooks disable-all = %q", got)
	}
	if got := readText(t, file); !strings.HasSuffix(got, "  \"hooksConfig\": {\n    \"disabled\": [\n      \"marker\",\n      "+strconv.Quote(markCommand(sh, "other.txt"))+"\n    ]\n  }\n}") {
		t.Errorf("the workspace's settings =\n%s", got)
	}
	if got := h.answer(env, "/hooks disableall"); got != "All hooks are already disabled." {
		t.Errorf("/hooks disableall = %q", got)
	}
	if m, o := h.promptCounting(env); m != 0 || o != 0 {
		t.Errorf("after /hooks disable-all the hooks ran %d and %d times", m, o)
	}
	if got := h.answer(env, "/hooks enable-all"); got != "Enabled 2 hook(s) successfully." {
		t.Errorf("/hooks enable-all = %q", got)
	}
	if got := readText(t, filepath.Join(h.home, ".gemini", "settings.json")); got != "{\n  \"hooksConfig\": {\n    \"disabled\": []\n  }\n}" {
		t.Errorf("the user's settings =\n%s", got)
	}
	if got := h.answer(env, "/hooks enableall"); got != "All hooks are already enabled." {
		t.Errorf("/hooks enableall = %q", got)
	}
	if m, o := h.promptCounting(h.conversation()); m != 1 || o != 1 {
		t.Errorf("after /hooks enable-all, in the next process, the hooks ran %d and %d times", m, o)
	}
}

// Where the workspace's settings are not read (a folder not trusted),
// /hooks disable writes the user's; a hook the system's settings disable
// stays disabled after /hooks enable, and the user is told.
func TestHooksUserAndSystemSettings(t *testing.T) {
	h := newHarness(t)
	delete(h.env, "GEMINI_CLI_TRUST_WORKSPACE")
	userFile := h.write("~/.gemini/settings.json", `{"hooks": {"BeforeAgent": [{"hooks": [`+markHook(osshell.Local(), "marker", "marker.txt")+`]}]}}`)
	env := h.conversation()
	if got, want := h.answer(env, "/hooks disable marker"), `Hook "marker" disabled by adding it to the disabled list in user (`+userFile+`) settings.`; got != want {
		t.Errorf("/hooks disable =\n%s\nwant\n%s", got, want)
	}
	if got := h.answer(env, "/hooks disable nothing"); !strings.HasSuffix(got, "settings. No hook of that name is configured now.") {
		t.Errorf("/hooks disable of a name no hook has = %q", got)
	}
	h.write(h.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], `{"hooksConfig": {"disabled": ["marker"]}}`)
	got := h.answer(env, "/hooks enable marker")
	if want := `Hook "marker" is still disabled: the system's settings file or the editor's settings list it in hooksConfig.disabled.`; !strings.HasSuffix(got, want) {
		t.Errorf("/hooks enable of a hook the system disables = %q", got)
	}
	if env.Built.Hooks.Handles("BeforeAgent") {
		t.Error("the hook the system disables would run")
	}
}
