package policy

import "testing"

// Making an engine leaves 0.61's listing policy files unparsed: the
// editor's initialize makes one, and only a prompt's Excludes reads them.
// Parsing them is thousands of allocations; making the engine a handful.
func TestNewLeavesTheListingUnparsed(t *testing.T) {
	rules := []*Rule{{ToolName: "run_shell_command", Decision: Allow, Priority: 2}}
	if n := testing.AllocsPerRun(20, func() { New(rules, true) }); n > 20 {
		t.Errorf("New made %v allocations, want at most 20: is the listing parsed up front?", n)
	}
	e := New(rules, true)
	listing := func() { e = New(rules, true); e.Excludes(Call{Name: "glob"}, 0) }
	if n := testing.AllocsPerRun(5, listing); n < 1000 {
		t.Errorf("New and a first Excludes made %v allocations, want the listing's parse (over 1000): the test no longer tells", n)
	}
}
