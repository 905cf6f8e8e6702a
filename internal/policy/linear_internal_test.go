package policy

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// A policy file of 1 MiB, however made, is read in linear time: its TOML
// and its rules.
func TestParseFileIsLinear(t *testing.T) {
	after := func(head, unit string) func(int) string {
		return func(size int) string { return head + lineartest.Repeat(unit)(size) }
	}
	for name, input := range map[string]func(int) string{
		"many rules":           after("", "[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\npriority = 1\n"),
		"many shell rules":     after("", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"git status\", \"ls\"]\ndecision = \"deny\"\npriority = 1\n"),
		"many patterns":        after("", "[[rule]]\ntoolName = \"x\"\nargsPattern = \"a.*b\"\ndecision = \"ask_user\"\npriority = 1\n"),
		"a long prefix list":   after("[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 1\ncommandPrefix = [", "\"a\","),
		"dotted keys":          after("", "a."),
		"nested inline tables": after("a = ", "{b="),
		"nested arrays":        after("a = ", "["),
		"bad rules":            after("", "[[rule]]\npriority = \"x\"\n"),
	} {
		lineartest.Linear(t, name, input, func(text string) {
			parseFile(Source{Tier: TierWorkspace}, "policy.toml", []byte(text))
		})
	}
}
