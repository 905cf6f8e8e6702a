package policy

import (
	"embed"
	"io/fs"
	"path"
)

// defaultPolicies are the rules of Gemini CLI 0.61's default policies
// (its bundle's policies/*.toml) that gemini-ls keeps as rules, in the
// Default tier; the rest of that tier is the agent's approval door in Go
// (internal/agent/approvals.go). As rules they carry what Go would lose: a rule's
// modes and interactivity, which decide the calls and which tools the
// model is told of (Excludes) alike.
//
//go:embed defaults/*.toml
var defaultPolicies embed.FS

// defaultRules are the rules of defaultPolicies; a problem means a file
// there is wrong, which the package's tests rule out.
func defaultRules() ([]*Rule, []Problem) { return embeddedRules(defaultPolicies, "defaults") }

// embeddedRules are the rules of the policy files in dir of fsys, in the
// Default tier.
func embeddedRules(fsys embed.FS, dir string) ([]*Rule, []Problem) {
	src := Source{Tier: TierDefault, Path: dir}
	names, err := fs.Glob(fsys, path.Join(src.Path, "*.toml"))
	if err != nil {
		return nil, []Problem{{Path: src.Path, Tier: src.Tier, Message: "Failed to read the built-in policies: " + err.Error()}}
	}
	var rules []*Rule
	var problems []Problem
	for _, name := range names {
		data, err := fsys.ReadFile(name)
		if err != nil {
			problems = append(problems, Problem{Path: name, Tier: src.Tier, Message: "Failed to read policy file: " + err.Error()})
			continue
		}
		r, p := parseFile(src, name, data)
		rules = append(rules, r...)
		problems = append(problems, p...)
	}
	return rules, problems
}
