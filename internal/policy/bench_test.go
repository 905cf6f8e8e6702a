package policy_test

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// benchRules are a user's rules as they grow: "always allow"s saved by
// the dialog and a few deny and ask_user rules of their own.
const benchRules = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff", "git log", "go test", "go build", "ls", "cat", "grep", "make"]
decision = "allow"
priority = 950

[[rule]]
toolName = "run_shell_command"
commandPrefix = ["rm -rf", "git push --force", "curl"]
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandRegex = "npm (publish|unpublish).*"
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "ask_user"
priority = 400

[[rule]]
toolName = "read_file"
decision = "allow"
priority = 100
`

// benchLines are shell lines as a model writes them.
var benchLines = []string{
	"git status",
	"go test ./internal/policy/... -run TestX -count=1",
	"cd internal/policy && go build ./... && go vet ./... 2>&1 | head -50",
	`grep -rn "func Check" --include='*.go' . | sort | uniq -c | head`,
	`for f in $(ls *.go); do echo "$f"; wc -l "$f"; done`,
	"rm -rf build && make -j4 all",
}

// BenchmarkCheckShell is the per-call cost of deciding a shell line by
// the rules: what every run_shell_command call pays.
func BenchmarkCheckShell(b *testing.B) {
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: writeDir(b, map[string]string{"rules.toml": benchRules})}}, true)
	for _, kind := range []osshell.Kind{osshell.Bash, osshell.PowerShell} {
		b.Run(kind.String(), func(b *testing.B) {
			calls := make([]policy.Call, len(benchLines))
			for i, line := range benchLines {
				calls[i] = shell(line)
				calls[i].Shell = kind
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				e.Check(calls[i%len(calls)])
			}
		})
	}
}
