package policy

import "testing"

// Every rule of 0.61's default policy files, as kept in listing/, is
// read: a rule lost there would tell the model of tools 0.61 hides, or
// hide what it declares.
func TestListingPoliciesAllLoad(t *testing.T) {
	rules, problems := listingRules()
	for _, p := range problems {
		t.Errorf("problem: %s", p)
	}
	// 0.61's files make 73 rules (a list of tool names is a rule per
	// name), gemini-ls's own file 5.
	if len(rules) != 78 {
		t.Errorf("%d rules, want 78", len(rules))
	}
}
