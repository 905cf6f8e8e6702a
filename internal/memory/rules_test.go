package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A root's Antigravity rules join the memory after its context files,
// by name, without their front matter: those always on and those with no
// trigger; the others are reported as not read, and why.
func TestAntigravityRules(t *testing.T) {
	tr := newTree(t)
	dir := RulesDir(tr.root)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root gemini")
	write(t, filepath.Join(dir, "b-style.md"), "---\ntrigger: always_on\n---\nRule: use tabs.\n")
	write(t, filepath.Join(dir, "a-plain.md"), "Rule: no trigger.\n")
	write(t, filepath.Join(dir, "c-db.md"), "---\ntrigger: model_decision\ndescription: databases\n---\nRule: act as a DBA.\n")
	write(t, filepath.Join(dir, "notes.txt"), "not a rule")
	l := tr.loader(t)

	got := systemMemory(t, l)
	inOrder(t, got,
		block(filepath.Join(tr.root, "GEMINI.md"), "root gemini"),
		block(filepath.Join(dir, "a-plain.md"), "Rule: no trigger."),
		block(filepath.Join(dir, "b-style.md"), "Rule: use tabs."))
	for _, absent := range []string{"act as a DBA", "trigger:", "not a rule"} {
		if strings.Contains(got, absent) {
			t.Errorf("%q is in the memory:\n%s", absent, got)
		}
	}
	report := l.RulesReport(context.Background())
	if len(report) != 3 || !report[0].Read || !report[1].Read || report[2].Read ||
		!strings.Contains(report[2].Why, "trigger model_decision") {
		t.Errorf("report = %+v", report)
	}
}

// An untrusted root's rules are not read, and the report says why.
func TestAntigravityRulesOnlyTrusted(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(RulesDir(tr.root), "style.md"), "Rule: use tabs.\n")
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := New(Config{Workspace: ws, Trusted: func(string) bool { return false }})
	if got := systemMemory(t, l); strings.Contains(got, "use tabs") {
		t.Errorf("an untrusted root's rule was read:\n%s", got)
	}
	if r := l.RulesReport(context.Background()); len(r) != 1 || r[0].Read || !strings.Contains(r[0].Why, "trusted folder") {
		t.Errorf("report = %+v", r)
	}
}
