package dialog

import "testing"

// The modes are named to users as Gemini CLI 0.61's footer names them,
// never by their setting values.
func TestApprovalModeNames(t *testing.T) {
	for mode, want := range map[ApprovalMode]string{
		ApprovalDefault: "manual", ApprovalAutoEdit: "auto-accept edits", ApprovalYolo: "YOLO", ApprovalPlan: "plan",
	} {
		if got := mode.Name(); got != want {
			t.Errorf("%s is named %q, want %q", mode, got, want)
		}
	}
}

// The modes rank as Gemini CLI's MODES_BY_PERMISSIVENESS: plan, default,
// auto_edit, yolo; an unknown mode ranks with plan, the strictest.
func TestApprovalModePermissiveness(t *testing.T) {
	order := []ApprovalMode{ApprovalPlan, ApprovalDefault, ApprovalAutoEdit, ApprovalYolo}
	for i, m := range order {
		for j, other := range order {
			if got := m.MorePermissive(other); got != (i > j) {
				t.Errorf("%s.MorePermissive(%s) = %v", m, other, got)
			}
		}
	}
	if ApprovalMode("sudo").MorePermissive(ApprovalPlan) {
		t.Error("an unknown mode ranks above plan")
	}
}
