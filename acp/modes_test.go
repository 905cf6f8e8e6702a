package acp

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/tools"
)

// The modes have Gemini CLI's ids (its ApprovalMode values); the
// settings' spelling of auto edit is taken too.
func TestModeIDs(t *testing.T) {
	for id, want := range map[string]tools.ApprovalMode{
		"default":   tools.ApprovalDefault,
		"autoEdit":  tools.ApprovalAutoEdit,
		"auto_edit": tools.ApprovalAutoEdit,
		"yolo":      tools.ApprovalYolo,
		"plan":      tools.ApprovalPlan,
	} {
		m, ok := modeByID(id)
		if !ok || m.mode != want {
			t.Errorf("modeByID(%q) = %+v, %v", id, m, ok)
		}
	}
	for _, id := range []string{"", "Plan", "YOLO", "auto"} {
		if _, ok := modeByID(id); ok {
			t.Errorf("modeByID(%q) found a mode", id)
		}
	}
	for _, m := range approvalModes {
		if modeOf(m.mode).id != m.id {
			t.Errorf("modeOf(%s) = %s", m.mode, modeOf(m.mode).id)
		}
	}
	if modeOf("strange").id != "default" {
		t.Error("an unknown approval mode is not shown as default")
	}
}

// A plan is sent as the session's plan by its list items, bullets and
// numbers alike; a plan without a list is one entry.
func TestPlanItems(t *testing.T) {
	got := planItems("# Plan\n\nWhy.\n\n1. Add the flag.\n2. Test it.\n   - check the help\n* Ship\n")
	want := []string{"Add the flag.", "Test it.", "check the help", "Ship"}
	if !slices.Equal(got, want) {
		t.Errorf("planItems = %q, want %q", got, want)
	}
	if got := planItems("  Just do it.\n"); !slices.Equal(got, []string{"Just do it."}) {
		t.Errorf("a plan without a list: %q", got)
	}
}
