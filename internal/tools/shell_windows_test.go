package tools

import (
	"os"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// cmdShell is cmd.exe as osshell runs it where Windows has no PowerShell
// (%ComSpec%, which every Windows sets).
func cmdShell(t *testing.T) ShellOptions {
	t.Helper()
	comSpec := os.Getenv("ComSpec")
	if comSpec == "" {
		comSpec = "cmd.exe"
	}
	return ShellOptions{Shell: osshell.Shell{Kind: osshell.Cmd, Executable: comSpec, Args: []string{"/d", "/s", "/c"}}}
}

// TestShellExitCodesAndOutput's lines in cmd.exe's words: the exit code,
// stdout and stderr together, stdin empty, as on Unix.
func TestShellInCmdExitCodesAndOutput(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	for _, tc := range []struct {
		command, want string
	}{
		{"exit 3", "Output: (empty)\nExit Code: 3\n"},
		// cmd.exe ends its lines in CRLF, which the output keeps as
		// written but for the end.
		{"echo out& (echo err)1>&2& exit 1", "Output: out\r\nerr\nExit Code: 1\n"},
		{"set /p line=& echo done", "Output: done\n"}, // stdin is empty, not the server's
	} {
		res := runShell(t, tw, cmdShell(t), map[string]any{"command": tc.command})
		if head, _ := shellOutput(t, res); head != tc.want {
			t.Errorf("%s: output %q", tc.command, res.Output)
		}
		if res.Status != dialog.StatusOK {
			t.Errorf("%s: Status %q", tc.command, res.Status)
		}
	}
}
