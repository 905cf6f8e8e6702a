package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Headless in the default mode, the model's edit and command are not
// offered: one line each for the person (not the model's "not found"),
// then one closing line with the count and the flag that offers them
// (issue 99). The exit status stays 0.61's.
func TestRunSaysOnceWhatTheModeDidNotOffer(t *testing.T) {
	h := newHeadless(t, map[string]string{"main.py": "print(1)\n"},
		call("write_file", map[string]any{"file_path": "main.py", "content": "print(2)\n"}),
		call("run_shell_command", map[string]any{"command": "python3 main.py"}),
		geminitest.TextTurn("Done: I edited main.py and ran it."))
	r := h.run("run", "-p", "fix the TODO")
	r.wantExit(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	want := []string{
		"gemini-ls: write_file is not offered to the model in the default approval mode (the auto_edit approval mode offers it; settings' tools.allowed can allow it), so the model's call of it did not run; the model was told: Tool \"write_file\" not found.",
		"gemini-ls: run_shell_command is not offered to the model in the default approval mode (the yolo approval mode offers it; settings' tools.allowed can allow it), so the model's call of it did not run; the model was told: Tool \"run_shell_command\" not found.",
		"gemini-ls: 2 of the model's calls did not run (write_file, run_shell_command), not offered in the default approval mode: --approval-mode yolo offers them.",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, strings.Join(want, "\n"))
	}
	if h.disk("main.py") != "print(1)\n" {
		t.Errorf("main.py changed: %q", h.disk("main.py"))
	}
}
