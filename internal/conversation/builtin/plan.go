package builtin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// maxPlanShown bounds the approved plan /plan reads to show it.
const maxPlanShown = 1 << 20

// plan switches the conversation to plan mode, as Gemini CLI's /plan
// does, and sends the goal, when one follows, as the prompt; without
// one, it shows the plan the user last approved in the session, if any.
// Plan mode is allowed in a folder that is not trusted: it allows less
// than the default mode.
func plan(ctx context.Context, env Env, goal string) (Reply, error) {
	if !env.Built.Plan.Enabled {
		return Reply{}, errors.New("plan mode is off: general.plan.enabled is false in the settings, or the plans directory cannot be used")
	}
	was := env.Session.ApprovalMode()
	env.Session.SetApprovalMode(dialog.ApprovalPlan)
	if goal = strings.TrimSpace(goal); goal != "" {
		return Reply{Input: &dialog.Input{Text: goal}, Mode: dialog.ApprovalPlan}, nil
	}
	text := "Already in Plan Mode."
	if was != dialog.ApprovalPlan {
		text = "Switched to Plan Mode."
	}
	if err := env.Session.SaveMode(ctx); err != nil {
		text += fmt.Sprintf(" (It will not survive a restart before the next prompt: %v.)", err)
	}
	if path := env.Session.ApprovedPlan(); path != "" {
		text += "\n\n" + approvedPlan(path)
	}
	return Reply{Text: text, Mode: dialog.ApprovalPlan}, nil
}

// approvedPlan shows the approved plan at path as Gemini CLI's /plan
// does: its file name, then its text; or why it cannot be read.
func approvedPlan(path string) string {
	content, err := safefile.Read(path, maxPlanShown)
	if err != nil {
		return fmt.Sprintf("Failed to read approved plan at %s: %v", path, err)
	}
	return fmt.Sprintf("Approved Plan: %s\n\n%s", filepath.Base(path), content)
}
