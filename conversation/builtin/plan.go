package builtin

import (
	"context"
	"errors"
	"strings"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/tools"
)

// plan switches the conversation to plan mode, as Gemini CLI's /plan
// does, and sends the goal, when one follows, as the prompt. Plan mode
// is allowed in a folder that is not trusted: it allows less than the
// default mode.
func plan(_ context.Context, env Env, goal string) (Reply, error) {
	if !env.Built.Plan.Enabled {
		return Reply{}, errors.New("plan mode is off: general.plan.enabled is false in the settings, or the plans directory cannot be used")
	}
	was := env.Session.ApprovalMode()
	env.Session.SetApprovalMode(tools.ApprovalPlan)
	if goal = strings.TrimSpace(goal); goal != "" {
		return Reply{Input: &agent.Input{Text: goal}, Mode: tools.ApprovalPlan}, nil
	}
	text := "Already in Plan Mode."
	if was != tools.ApprovalPlan {
		text = "Switched to Plan Mode."
	}
	return Reply{Text: text, Mode: tools.ApprovalPlan}, nil
}
