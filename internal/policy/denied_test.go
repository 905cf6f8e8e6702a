package policy_test

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// The programs the sandbox locks are those a deny rule names by a
// one-word command prefix, in every mode, with nothing above it that
// could let a command of them through; a wider or narrower rule gives
// none.
func TestDeniedPrograms(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rules       string
		interactive bool
		want        []string
	}{
		{name: "one word", want: []string{"rm", "dd"}, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["rm", "dd", "rm"]
decision = "deny"
priority = 10`},
		{name: "several words deny a use, not the program", want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 10`},
		{name: "a pattern is not a program", want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandRegex = "rm .*"
decision = "deny"
priority = 10`},
		{name: "some modes only", want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
modes = ["yolo"]
priority = 10`},
		{name: "a higher allow of a use lets some through", want: []string{"dd"}, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["rm", "dd"]
decision = "deny"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm -i"
decision = "allow"
priority = 20`},
		{name: "a higher ask of the path", want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "/bin/rm"
decision = "ask_user"
priority = 20`},
		{name: "a higher allow of the whole tool", want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 10

[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 20`},
		{name: "a lower allow changes nothing", want: []string{"rm"}, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 30

[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 20`},
		{name: "headless rule in an interactive session", interactive: true, want: nil, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
interactive = false
priority = 10`},
		{name: "a higher allow for headless sessions only, interactive", interactive: true, want: []string{"rm"}, rules: `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 10

[[rule]]
toolName = "run_shell_command"
decision = "allow"
interactive = false
priority = 20`},
		{name: "another tool", want: nil, rules: `
[[rule]]
toolName = "read_file"
decision = "deny"
priority = 10`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := load(t, policy.TierUser, tc.interactive, map[string]string{"rules.toml": tc.rules})
			noProblems(t, e)
			if got := e.DeniedPrograms(); !slices.Equal(got, tc.want) {
				t.Errorf("DeniedPrograms = %q, want %q", got, tc.want)
			}
		})
	}
	var none *policy.Engine
	if got := none.DeniedPrograms(); got != nil {
		t.Errorf("a nil engine denies %q", got)
	}
}
