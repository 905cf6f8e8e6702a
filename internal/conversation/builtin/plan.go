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

// planCommand is /plan, as Gemini CLI 0.61's: a goal after it is the
// prompt, and "copy" alone runs its subcommand; 0.61's copy takes no
// arguments, so "/plan copy the tests" is a goal, as 0.61 parses it
// (parseSlashCommand: takesArgs false hands the words to the parent).
func planCommand() Builtin {
	copyPlan := Builtin{Command: command("copy", "Show the approved plan as one block to copy: gemini-ls cannot reach your clipboard", ""), Run: copyPlan}
	return Builtin{
		Command:     prompt(command("plan", "Switch to Plan Mode and view current plan", "[goal] | copy")),
		Subcommands: []Builtin{copyPlan},
		Run: func(ctx context.Context, env Env, args string) (Reply, error) {
			if strings.TrimSpace(args) == copyPlan.Name {
				return copyPlan.Invoke(ctx, env, "")
			}
			return plan(ctx, env, args)
		},
	}
}

// copyPlan is 0.61's /plan copy where the clipboard is the editor's, out
// of the server's reach: the approved plan is the answer, in one code
// block the chat copies whole (VS Code's Copy on it), with 0.61's words
// around it. As 0.61's, it leaves the approval mode as it is.
func copyPlan(_ context.Context, env Env, _ string) (Reply, error) {
	path := env.Session.ApprovedPlan()
	if path == "" {
		return Reply{Text: "No approved plan found to copy."}, nil
	}
	content, err := safefile.Read(path, maxPlanShown)
	if err != nil {
		return Reply{}, fmt.Errorf("Failed to copy plan: %w", err)
	}
	return Reply{Text: fmt.Sprintf("Plan ready to copy (%s): gemini-ls cannot reach your clipboard from the editor's language server, so copy it from this block.\n\n%s",
		filepath.Base(path), dialog.Fence("markdown", string(content)))}, nil
}

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
