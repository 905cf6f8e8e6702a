package policy

import (
	"regexp"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// AllowPrefixes are the rules that allow the shell lines starting with
// each of prefixes (go test), at priority: what a session's "always
// allow" of a command's prefix makes, as Gemini CLI 0.61 makes a rule of
// an "always allow" (commandPrefix, createPolicyUpdater). They are
// commandPrefix rules, built and judged as a policy file's: a line one
// matches runs only when every command it runs is allowed too, by one of
// them, another rule or the caller (Verdict.Undecided), so allowing go
// test does not allow go test; rm -rf x.
func AllowPrefixes(prefixes []string, priority float64, source string) []*Rule {
	rules := make([]*Rule, 0, len(prefixes))
	patterns, _ := argsPatterns(ruleFields{prefixes: prefixes}) // never fails for prefixes
	for i, pattern := range patterns {
		rules = append(rules, &Rule{
			ToolName:      tools.ShellName,
			Args:          regexp.MustCompile(pattern), // escaped text: always compiles
			Decision:      Allow,
			Priority:      priority,
			CommandPrefix: prefixes[i],
			Source:        source,
		})
	}
	return rules
}
