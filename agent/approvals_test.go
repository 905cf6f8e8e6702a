package agent

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/tools"
)

func TestApprovals(t *testing.T) {
	mode := tools.ApprovalDefault
	a := newApprovals(func() tools.ApprovalMode { return mode }, []string{"git"}, []string{"web_fetch"})
	if !a.allowedCall("web_fetch", []string{"example.com"}) || a.allowedCall("run_shell_command", []string{"curl"}) {
		t.Error("a trusted tool's calls must run without asking, and only that tool's")
	}
	for _, tc := range []struct {
		keys []string
		want bool
	}{
		{nil, false},
		{[]string{"git"}, true}, // preapproved by settings
		{[]string{"git", "rm"}, false},
		{[]string{tools.EditKey}, false},
	} {
		if got := a.Allowed(tc.keys...); got != tc.want {
			t.Errorf("default: Allowed(%q) = %v, want %v", tc.keys, got, tc.want)
		}
	}
	a.AllowAlways("rm")
	if !a.Allowed("git", "rm") {
		t.Error("rm not allowed after AllowAlways")
	}
	if got := a.keys(); !slices.Equal(got, []string{"rm"}) {
		t.Errorf("keys() = %q: want only what the user allowed, not the settings' keys", got)
	}
	// The mode is read on every question: a change applies at once.
	mode = tools.ApprovalAutoEdit
	if !a.Allowed(tools.EditKey) || a.Allowed(tools.EditKey, "curl") {
		t.Error("auto_edit must allow edits and only edits")
	}
	mode = tools.ApprovalYolo
	if !a.Allowed() || !a.Allowed("curl") {
		t.Error("yolo must allow everything")
	}
}
