package setup

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
)

// The model and the approval mode are chosen as Gemini CLI ranks them:
// the front end's explicit choice, then GEMINI_MODEL (for the model), then
// settings; a later change of settings beats the explicit choice.
func TestChoose(t *testing.T) {
	files := settings.Settings{Model: settings.Model{Name: "settings-model"}, General: settings.General{DefaultApprovalMode: "auto_edit"}}
	for _, tc := range []struct {
		name      string
		opts      Options
		env       string
		set       settings.Settings
		wantModel string
		wantMode  tools.ApprovalMode
	}{
		{"settings", Options{}, "", files, "settings-model", tools.ApprovalAutoEdit},
		{"environment beats settings", Options{}, "env-model", files, "env-model", tools.ApprovalAutoEdit},
		{"explicit beats both", Options{Model: "flag-model", ApprovalMode: tools.ApprovalYolo}, "env-model", files, "flag-model", tools.ApprovalYolo},
		{"a later change beats the explicit choice", Options{Model: "flag-model", ApprovalMode: tools.ApprovalYolo}, "env-model",
			settings.Settings{Model: settings.Model{Name: "changed"}, General: settings.General{DefaultApprovalMode: "default"}}, "changed", tools.ApprovalDefault},
		{"defaults", Options{}, "", settings.Settings{}, "gemini-2.5-pro", tools.ApprovalDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := files
			if tc.name == "defaults" {
				base = settings.Settings{}
			}
			b := &Built{opts: tc.opts, Getenv: func(k string) string {
				if k == "GEMINI_MODEL" {
					return tc.env
				}
				return ""
			}}
			model, mode := b.choose(base, tc.set)
			if model != tc.wantModel || mode != tc.wantMode {
				t.Errorf("choose = %q, %q; want %q, %q", model, mode, tc.wantModel, tc.wantMode)
			}
		})
	}
}
