package setup

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// tools.confirmationRequired has every call of the tools it names asked
// about, over tools.allowed, as Gemini CLI 0.61's ask_user rules at
// priority 4.35 have it; without it, tools.allowed lets the same command
// run. (Yolo: policy.TestConfirmationRequiredAsksInEveryMode.)
func TestConfirmationRequiredAsksOverWhatAllows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string
		mode     dialog.ApprovalMode
		asks     bool
	}{
		{"allowed", `{"tools": {"allowed": ["run_shell_command(git)"]}}`, "", false},
		{"allowed, confirmation required", `{"tools": {"allowed": ["run_shell_command(git)"], "confirmationRequired": ["run_shell_command"]}}`, "", true},
		{"allowed, confirmation required by the class name", `{"tools": {"allowed": ["run_shell_command(git)"], "confirmationRequired": ["ShellTool"]}}`, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAttack(t)
			a.env["GEMINI_API_KEY"] = "k"
			writeFile(t, filepath.Join(a.home, ".gemini", "settings.json"), tc.settings)
			b := a.build(t, tc.mode)
			ok, err := b.Agent.NewSession().AllowShell(context.Background(), "git push --force origin main", nil)
			// No front end here can ask: a call that asks is refused so.
			if asked := !ok && errors.Is(err, dialog.ErrCannotAsk); asked != tc.asks {
				t.Errorf("git push: allowed %v (%v), want asked %v", ok, err, tc.asks)
			}
			for _, w := range a.warnings {
				if strings.Contains(w, "confirmationRequired") {
					t.Errorf("warned: %s", w)
				}
			}
		})
	}
}
