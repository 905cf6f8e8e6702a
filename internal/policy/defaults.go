package policy

//go:generate go test -run TestGeneratedTablesAreCurrent -update .

// embeddedFile is a policy file gemini-ls is built with (defaults/,
// listing/): its path and its [[rule]] tables as the TOML decoder gives
// them, generated from the file into tables.go
// (TestGeneratedTablesAreCurrent), so that no start parses the TOML:
// that took 1.3 ms of CPU on the way to the first model request.
type embeddedFile struct {
	path   string
	tables []map[string]any
}

// defaultRules are the rules of Gemini CLI 0.61's default policies
// (its bundle's policies/*.toml) that gemini-ls keeps as rules, in the
// Default tier; the rest of that tier is the agent's approval door in Go
// (internal/agent/approvals.go). As rules they carry what Go would lose: a rule's
// modes and interactivity, which decide the calls and which tools the
// model is told of (Excludes) alike.
func defaultRules() ([]*Rule, []Problem) { return embeddedRules(defaultsFiles(), "defaults") }

// embeddedRules are the rules of files, the policy files in dir, in the
// Default tier; a problem means a file there is wrong, which the
// package's tests rule out.
func embeddedRules(files []embeddedFile, dir string) ([]*Rule, []Problem) {
	src := Source{Tier: TierDefault, Path: dir}
	var rules []*Rule
	var problems []Problem
	for _, f := range files {
		r, p := parseTables(src, f.path, f.tables)
		rules = append(rules, r...)
		problems = append(problems, p...)
	}
	return rules, problems
}
