package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// denyRmAllowBeneath denies rm, with a rule below it that allows every
// shell line.
const denyRmAllowBeneath = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
`

// Issue 84's Must-show, headless with bash: a deny rule on rm refuses
// every line that runs rm, however the line spells it (blanks around it,
// quotes, escapes, a line continuation, $'…', shell wrappers with any
// flags), although a lower rule allows every shell line, and a stand-in
// rm on PATH never runs; a line whose command is not known before it
// runs is refused saying why (headless: nobody to ask); a line that runs
// no rm runs.
func TestRunDenyRuleRefusesEverySpellingWithBash(t *testing.T) {
	for _, shell := range []string{"bash", "sh"} {
		platformtest.Tool(t, shell)
	}
	marker := filepath.Join(t.TempDir(), "rm-ran")
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"rm": "#!/bin/sh\necho \"rm $*\" >> '" + marker + "'\n"})
	if err := os.Chmod(filepath.Join(bin, "rm"), 0o755); err != nil {
		t.Fatal(err)
	}
	spellings := []string{
		" rm x", "rm x\n", `\rm x`, `'rm' x`, `"rm" x`, "r\\\nm x", `$'rm' x`,
		"bash -lc 'rm x'", "bash -ec 'rm x'", "bash -e -c 'rm x'", "bash -c -- 'rm x'",
		"command bash -c 'rm x'", "exec bash -c 'rm x'", "sh -c 'rm x'", "env FOO=1 rm x", "echo x | xargs rm",
	}
	// Issue 95's escapes, which bash ran: refused (headless, nobody to
	// ask), each saying why.
	escapes := []string{". <(echo 'rm -rf x')", "echo 'rm x' | source /dev/stdin", "echo 'rm x' | bash /dev/stdin",
		"coproc rm -rf x | cat", `$'\x{72}\x{6d}' -rf x`, "PS4='$(rm x)' bash -xc true", "find . -exec env rm {} +",
		"flock x rm x", "watch -g rm x", "script -qc 'rm x' /dev/null", "nsenter rm x"}
	lines := append(append(append([]string{}, spellings...), escapes...), `$(printf rm) x`, "echo kept")
	_, fr := runShellUnderPolicies(t, map[string]string{"x": "x\n"}, map[string]string{"deny.toml": denyRmAllowBeneath}, bin, lines...)
	for i, command := range escapes {
		if e := responseError(fr[len(spellings)+i]); e == "" {
			t.Errorf("%q ran, want it refused", command)
		}
	}
	fr = append(fr[:len(spellings):len(spellings)], fr[len(spellings)+len(escapes):]...)
	for i, command := range spellings {
		if e := responseError(fr[i]); e != "Tool execution denied by policy." {
			t.Errorf("%q: %+v, want the policy's denial", command, fr[i].Response)
		}
	}
	unknown := responseError(fr[len(spellings)])
	if !strings.Contains(unknown, "The policy rules cannot judge it before it runs: it runs $(printf rm) x, whose words are not known before it runs, and the deny rule of User: deny.toml may match it") {
		t.Errorf("the line whose command is not known: %q, want it refused saying why", unknown)
	}
	if e := responseError(fr[len(fr)-1]); e != "" {
		t.Errorf("echo kept was refused: %s", e)
	}
	if ran, err := os.ReadFile(marker); err == nil {
		t.Errorf("rm ran: %q", ran)
	}
}
