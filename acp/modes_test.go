package acp

import (
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
