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
