package hooks_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// TestProtocolInTheSystemsShell: what a hook's exit code, stdout and
// stderr mean, its environment and its directory, with command lines in
// the system's shell: bash, or on Windows cmd.exe (which every Windows
// has; Wine's powershell.exe, which osshell would find, runs nothing).
// The other tests run sh scripts, so they run off Windows only.
func TestProtocolInTheSystemsShell(t *testing.T) {
	sh := osshell.Shell{Kind: osshell.Bash, Executable: "bash", Args: []string{"-c"}}
	if runtime.GOOS == "windows" {
		sh = osshell.Shell{Kind: osshell.Cmd, Executable: "cmd.exe", Args: []string{"/d", "/s", "/c"}}
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, bash, cmd string
		block           bool
		reason, message string
	}{
		{"exit 2", `echo 'rm is not allowed' >&2; exit 2`, `(echo rm is not allowed)1>&2 & exit 2`, true, "rm is not allowed", ""},
		{"deny", `echo '{"decision":"deny","reason":"not on Fridays"}'`, `echo {"decision":"deny","reason":"not on Fridays"}`, true, "not on Fridays", ""},
		{"exit 1", `echo 'lint crashed' >&2; exit 1`, `(echo lint crashed)1>&2 & exit 1`, false, "", "it exited with code 1: lint crashed"},
		{"plain text", `echo all good`, `echo all good`, false, "", "all good"},
		{"environment", `echo "session $GEMINI_SESSION_ID"`, `echo session %GEMINI_SESSION_ID%`, false, "", "session s-1"},
		{"directory", `pwd`, `cd`, false, "", dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.bash
			if sh.Kind == osshell.Cmd {
				line = tc.cmd
			}
			r, problems := hooks.New(hooks.Config{
				Sources:    []hooks.Source{{Name: "settings", Hooks: settings.Hooks{agent.HookBeforeTool: {def("", command(line, 0))}}}},
				ProjectDir: dir,
				Shell:      sh,
			})
			if len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			out := fire(t, r, beforeTool("run_shell_command", map[string]any{"command": "ls"}))
			if out.Block != tc.block || tc.block && out.Reason != tc.reason {
				t.Errorf("block %v reason %q, want %v %q", out.Block, out.Reason, tc.block, tc.reason)
			}
			got := strings.Join(out.Messages, "\n")
			if tc.message == "" && got != "" || !strings.Contains(got, tc.message) {
				t.Errorf("messages %q, want %q", got, tc.message)
			}
		})
	}
}
