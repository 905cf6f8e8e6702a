package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// savedGitStatus is the auto-saved policy of a user who allowed git
// status for all future sessions.
const savedGitStatus = `[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status"]
decision = "allow"
priority = 950
modes = ["default", "autoEdit", "yolo"]
`

// The Must-show, headless in the default mode, with a saved
// allow rule for git status and a stand-in git on PATH (it logs its
// arguments, and runs core.fsmonitor when GIT_CONFIG_* set it, as git
// does): every way of making "git status" carry another command is
// refused, and its would-be side effect is absent: an environment
// assignment before git status, an assignment of PATH between two of
// them, export and declare -x of git's configuration, a late ${x@P}
// expansion, a quote glued to the prefix. git status alone still runs.
// The shell tool runs bash, and the stand-ins are sh scripts: the test
// needs both on PATH (platformtest.Tool: failed under CI without them).
func TestRunSavedGitStatusRuleCoversOnlyGitStatusWithBash(t *testing.T) {
	for _, shell := range []string{"bash", "sh"} {
		platformtest.Tool(t, shell)
	}
	gitLog := filepath.Join(t.TempDir(), "git.log")
	bin := gitScript(t, `echo "git $*" >> '`+gitLog+"'\n"+
		`if [ "$GIT_CONFIG_KEY_0" = core.fsmonitor ]; then sh -c "$GIT_CONFIG_VALUE_0"; fi`)
	// evil is a directory whose git touches marker.
	evil := func(marker string) string { return gitScript(t, "touch "+marker) }
	config := func(marker string) string {
		return "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch " + marker + "'"
	}
	bypasses := []struct{ class, command, marker string }{
		{"PATH before git status", "PATH=" + evil("pwned-by-path-before") + ":$PATH git status", "pwned-by-path-before"},
		{"git's configuration before git status", config("pwned-by-env") + " git status", "pwned-by-env"},
		{"PATH assigned between", "git status && PATH=" + evil("pwned-by-path-between") + ":$PATH && git status", "pwned-by-path-between"},
		{"export between", "git status && export " + config("pwned-by-export") + " && git status", "pwned-by-export"},
		{"declare -x between", "git status && declare -x " + config("pwned-by-declare") + " && git status", "pwned-by-declare"},
		{"a late ${x@P}", "git status && x='$(touch pwned-by-prompt)' && git status ${x@P}", "pwned-by-prompt"},
		{"a glued quote", `git status"x"`, ""},
	}
	var commands []string
	for _, b := range bypasses {
		commands = append(commands, b.command)
	}
	h, fr := runShellUnderPolicies(t, map[string]string{"a.txt": "a\n"}, map[string]string{"auto-saved.toml": savedGitStatus}, bin,
		append(commands, "git status")...)
	for i, b := range bypasses {
		t.Logf("%s: %s", b.class, responseError(fr[i]))
		if e := responseError(fr[i]); e == "" {
			t.Errorf("%s (%q) ran: %+v, want it refused", b.class, b.command, fr[i].Response)
		}
		if b.marker != "" && h.exists(b.marker) {
			t.Errorf("%s (%q): %s exists, the hidden command ran", b.class, b.command, b.marker)
		}
	}
	// The model is told why the rule did not speak for the line.
	if e := responseError(fr[5]); !strings.Contains(e, "A policy rule allows the command, but not all it does: it uses a ${…@…} transformation") {
		t.Errorf("the ${x@P} line's refusal %q does not say why", e)
	}
	if e := responseError(fr[len(fr)-1]); e != "" {
		t.Errorf("git status alone was refused: %s", e)
	}
	logged, _ := os.ReadFile(gitLog)
	if string(logged) != "git status\n" {
		t.Errorf("git ran as %q, want git status alone, once", logged)
	}
}

// gitScript is a new directory holding a git that is the sh script body.
func gitScript(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"git": "#!/bin/sh\n" + body + "\n"})
	if err := os.Chmod(filepath.Join(dir, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Deny rules whose commandPrefix holds >, <, & or U+2028 refuse the
// commands they name, headless in yolo, where nothing else would stop
// them: the rule is encoded as the command is (issue 64).
func TestRunDenyRulesWithSpecialCharactersMatchWithBash(t *testing.T) {
	sandboxtest.NeedBash(t)
	commands := []struct{ command, effect string }{
		{"echo x > gt.txt", "gt.txt"},
		{"cp /dev/stdin lt.txt < a.txt", "lt.txt"},
		{"touch amp.txt & wait", "amp.txt"},
		{"touch 'line\u2028sep.txt'", "line\u2028sep.txt"},
	}
	var rules strings.Builder
	var calls []*genai.FunctionCall
	for _, c := range commands {
		b, err := json.Marshal(c.command) // a TOML basic string too: no control characters
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&rules, "[[rule]]\ncommandPrefix = %s\ndecision = \"deny\"\npriority = 100\n\n", b)
		calls = append(calls, geminitest.Call("run_shell_command", map[string]any{"command": c.command}))
	}
	h := newHeadless(t, map[string]string{"a.txt": "a\n"}, geminitest.CallTurn(calls...), geminitest.TextTurn("Finished."))
	home, env := policyHome(t, map[string]string{"deny.toml": rules.String()})
	trustFolder(t, home, h.root)
	h.runIn(h.root, append(h.env, env...), "run", "-p", "write", "--approval-mode", "yolo").wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != len(commands) {
		t.Fatalf("%d function responses, want %d", len(fr), len(commands))
	}
	for i, c := range commands {
		if e := responseError(fr[i]); e != "Tool execution denied by policy." {
			t.Errorf("%q: %+v, want the policy's denial", c.command, fr[i].Response)
		}
		if h.exists(c.effect) {
			t.Errorf("%q ran: %s exists", c.command, c.effect)
		}
	}
}
