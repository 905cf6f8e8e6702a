package tools

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// Issue 95: the shell confirmation parses the line to name its commands,
// and a line of 150,000 nested parentheses (300 KB) ended the process
// there with a stack overflow, with no policy rule at all. It is asked
// about, saying why it is not read, and the process lives on.
func TestShellConfirmationOfALineTooDeepSaysWhy(t *testing.T) {
	line := "echo $((" + strings.Repeat("(", 150_000) + "1" + strings.Repeat(")", 150_002)
	c := ShellConfirmation(osshell.Bash, line)
	if len(c.AllowKeys) != 0 || !strings.Contains(c.Title, "It is asked every time: it may nest 150002 levels deep, more than the 8192 levels of a shell line gemini-ls reads.") {
		t.Errorf("title %q, keys %q: want it asked, saying how deep it nests", c.Title, c.AllowKeys)
	}
}

// Every reading of a shell line the confirmation makes is linear in its
// length, however the line nests: bash's and the Windows shells'.
func TestShellConfirmationIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"parentheses":   lineartest.Repeat("("),
		"substitutions": lineartest.Repeat("echo $("),
		"a flat list":   lineartest.Repeat("git status && "),
		"keywords":      lineartest.Repeat("time "),
	} {
		for _, kind := range []osshell.Kind{osshell.Bash, osshell.PowerShell, osshell.Cmd} {
			lineartest.Linear(t, kind.String()+" "+name, input, func(line string) { ShellConfirmation(kind, line) })
		}
	}
}
