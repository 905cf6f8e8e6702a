package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Plan mode, as Gemini CLI defines it (enter-plan-mode.ts,
// exit-plan-mode.ts, policies/plan.toml): the model researches with
// read-only tools, writes its plan as a Markdown file in the plans
// directory, and asks the user to approve it. Which calls plan mode
// refuses is the agent's approval service's to decide; these tools only
// say which mode the session takes next (Result.Mode).

// The options of the plan approval, by the mode each approves into.
const (
	PlanApproveAutoEdit = string(dialog.ApprovalAutoEdit)
	PlanApproveDefault  = string(dialog.ApprovalDefault)
)

// PlanOptions configure plan mode's tools.
type PlanOptions struct {
	// Enabled offers enter_plan_mode and exit_plan_mode (settings'
	// general.plan.enabled, on by default). Their calls are built in a
	// session (SessionTool), whose plans directory they use.
	Enabled bool
	// Unattended: nobody can be asked (headless). As in Gemini CLI's
	// non-interactive runs, entering plan mode is not asked about, and a
	// plan is approved at once; unlike them (which approve into yolo),
	// the session goes back to the mode it had before plan mode
	// (SessionScope.ModeBeforePlan), never a more permissive one, and
	// stays in plan mode when it started in it.
	Unattended bool
}

// planFileName is a plan's file name as Gemini CLI's policy lets plan
// mode write it: word characters and dashes, ending in .md.
var planFileName = lazyregexp.New(`^[\w-]+\.md$`)

// IsPlanFile reports whether path (absolute, resolved) is a plan file in
// dir: a Markdown file directly in it, named as plan mode may write it.
func IsPlanFile(dir, path string) bool {
	return dir != "" && filepath.Dir(path) == filepath.Clean(dir) && planFileName.MatchString(filepath.Base(path))
}

func planTools(ws *workspace.Workspace, opts PlanOptions) []Tool {
	if !opts.Enabled {
		return nil
	}
	return []Tool{enterPlanMode(opts.Unattended), exitPlanMode(ws, opts.Unattended)}
}

type enterPlanModeParams struct {
	Reason string `json:"reason,omitempty" jsonschema:"Short reason explaining why you are entering plan mode."`
}

// enterPlanMode is enter_plan_mode, declared as Gemini CLI declares it,
// word for word; unattended, it is not asked about. Its annotations say
// only its kind: the approval door decides on it by its name.
func enterPlanMode(unattended bool) InSession[enterPlanModeParams] {
	return DefineInSession(Spec{
		Name:        EnterPlanModeName,
		Description: "Switch to Plan Mode to safely research, design, and plan complex changes using read-only tools.",
		Annotations: Annotations{Kind: dialog.KindThink},
	}, func(s *SessionScope, p enterPlanModeParams) (Call, error) {
		c := enterPlanModeCall{reason: strings.TrimSpace(p.Reason), unattended: unattended}
		if s != nil {
			c.dir = s.PlansDir
		}
		return c, nil
	})
}

type enterPlanModeCall struct {
	dir, reason string
	unattended  bool
}

func (c enterPlanModeCall) Title() string { return cmp.Or(c.reason, "Initiating Plan Mode") }

// Confirmation asks every time, as Gemini CLI does in an interactive
// session; an unattended one is not asked.
func (c enterPlanModeCall) Confirmation() *Confirmation {
	if c.unattended {
		return nil
	}
	return &Confirmation{Kind: dialog.ConfirmPlan, Title: "Enter Plan Mode", Details: "This will restrict the agent to read-only tools to allow for safe planning."}
}

// Execute switches the session to plan mode and makes the plans
// directory, so that the model's first write_file of its plan lands.
func (c enterPlanModeCall) Execute(context.Context, CallInfo) (Result, error) {
	if c.dir == "" {
		return Result{}, errors.New("the session has no plans directory")
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("making the plans directory: %w", err)
	}
	display := "Switching to Plan mode"
	if c.reason != "" {
		display += ": " + c.reason
	}
	return Result{Output: "Switching to Plan mode.", Display: display, Mode: dialog.ApprovalPlan}, nil
}

type exitPlanModeTool struct {
	ws         *workspace.Workspace
	unattended bool
}

type exitPlanModeParams struct {
	PlanFilename string `json:"plan_filename" jsonschema:"The filename of the finalized plan (e.g., \"feature-x.md\"). Do not provide an absolute path."`
}

// exitPlanMode is exit_plan_mode over ws, declared as Gemini CLI
// declares it, word for word (getExitPlanModeDeclaration: the plan's
// file name; its docs' "plan_path" is older); unattended, a plan is
// approved at once, into the mode the session had before plan mode.
func exitPlanMode(ws *workspace.Workspace, unattended bool) InSession[exitPlanModeParams] {
	t := &exitPlanModeTool{ws: ws, unattended: unattended}
	return DefineInSession(Spec{
		Name:        ExitPlanModeName,
		Description: "Finalizes the planning phase and transitions to implementation by presenting the plan for formal user approval. You MUST reach an informal agreement with the user in the chat regarding the proposed strategy BEFORE calling this tool. This tool MUST be used to exit Plan Mode before any source code edits can be performed.",
		Annotations: Annotations{Kind: dialog.KindThink, ReadOnly: true, AsksUser: true},
	}, t.build)
}

// build checks the plan's file name as Gemini CLI checks it (its schema,
// then validateToolParamValues) and finds the plan in the session's
// plans directory. Outside a session (s nil) it makes a call that names
// the plan as the model did, for a transcript's title; it has no plan to
// present (Execute fails).
func (t *exitPlanModeTool) build(s *SessionScope, p exitPlanModeParams) (Call, error) {
	name := strings.TrimSpace(p.PlanFilename)
	if name == "" {
		return nil, errors.New("plan_filename is required.")
	}
	if s == nil {
		return &exitPlanModeCall{ws: t.ws, path: name, noSession: true}, nil
	}
	path, err := t.resolve(s.PlansDir, name)
	if err != nil {
		return nil, err
	}
	return &exitPlanModeCall{ws: t.ws, path: path, unattended: t.unattended, before: s.ModeBeforePlan}, nil
}

// resolve finds the plan the model names, as Gemini CLI does
// (resolveAndValidatePlanPath): an absolute path, else a path from the
// project root or a name in the plans directory; where it really lies,
// its symlinks followed, must be in the plans directory (so a plan
// file leading to a source file or out of the workspace is not
// presented as the plan). It returns that real path.
func (t *exitPlanModeTool) resolve(dir, name string) (string, error) {
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = nil
		if roots := t.ws.Roots(); len(roots) > 0 {
			candidates = append(candidates, filepath.Join(roots[0], name))
		}
		candidates = append(candidates, filepath.Join(dir, name))
	}
	realDir, err := workspace.RealPath(dir)
	if dir != "" && err == nil {
		for _, c := range candidates {
			if real, err := t.ws.Resolve(c); err == nil && inDir(realDir, real) {
				return real, nil
			}
		}
	}
	return "", fmt.Errorf("Access denied: plan path (%s) must be within the designated plans directory (%s).", name, cmp.Or(realDir, dir))
}

func inDir(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

type exitPlanModeCall struct {
	ws         *workspace.Workspace
	path       string
	unattended bool
	// before is the mode an unattended approval goes back to.
	before dialog.ApprovalMode
	// noSession: built outside a session, for its title alone.
	noSession bool
	// todos are the plan's steps (PlanTodos), read by Prepare: the
	// front ends show them as the session's plan, as write_todos' list.
	todos []dialog.Todo
}

func (c *exitPlanModeCall) Title() string { return "Requesting plan approval for: " + c.path }

// Location is the plan, which the front ends show while it is approved.
func (c *exitPlanModeCall) Location() (string, int) { return c.path, 0 }

// Prepare reads the plan's steps, for Present.
func (c *exitPlanModeCall) Prepare(ctx context.Context) {
	if plan, invalid, err := c.read(ctx); !c.noSession && err == nil && invalid == "" {
		c.todos = PlanTodos(plan)
	}
}

// Present says the call presents its plan for approval, and gives the
// plan's steps as the session's plan, where it has some: the plan
// widget of every front end shows plan mode's plan as it shows
// write_todos' list, whatever the model (0.61 declares write_todos only
// to Gemini 2 models).
func (c *exitPlanModeCall) Present(d *dialog.ToolCall) {
	d.PresentsPlan = true
	if len(c.todos) > 0 {
		d.Todos = c.todos
	}
}

// Confirmation is nil: the plan approval is the question, put by Execute.
func (*exitPlanModeCall) Confirmation() *Confirmation { return nil }

// Execute presents the plan for approval and reports the user's answer:
// approved, the session leaves plan mode for the mode they chose;
// otherwise it stays in plan mode and the model hears their feedback.
func (c *exitPlanModeCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	if c.noSession {
		return Result{}, errors.New("the plan cannot be presented outside a session")
	}
	plan, invalid, err := c.read(ctx)
	switch {
	case err != nil:
		return Result{}, err
	case invalid != "":
		return Result{Error: invalid, Status: dialog.StatusError, Display: "Error: Invalid plan"}, nil
	case c.unattended:
		return c.settleUnattended(), nil
	case info.Ask == nil:
		return failure("The plan could not be presented for approval: this front end cannot ask the user. You are still in Plan Mode."), nil
	}
	answer, err := info.Ask(ctx, PlanQuestion(c.path, plan))
	if err != nil {
		return Result{}, fmt.Errorf("asking the user to approve the plan: %w", err)
	}
	return c.settle(answer), nil
}

// read is the plan's text, or why it cannot be approved, in Gemini CLI's
// words (PlanErrorMessages).
func (c *exitPlanModeCall) read(ctx context.Context) (plan, invalid string, err error) {
	f, err := c.ws.ReadFile(ctx, c.path, maxPlanSize)
	switch {
	case errors.Is(err, workspace.ErrNotExist):
		return "", fmt.Sprintf("Plan file does not exist: %s. You must create the plan file before requesting approval.", c.path), nil
	case err != nil:
		return "", fmt.Sprintf("Failed to read plan file: %v", err), nil
	case strings.TrimSpace(string(f.Content)) == "":
		return "", "Plan file is empty. You must write content to the plan file before requesting approval.", nil
	}
	return string(f.Content), "", nil
}

// maxPlanSize bounds the plan read to show it.
const maxPlanSize = 1 << 20

// PlanQuestion is the plan approval Gemini CLI's dialog offers: approve
// with edits accepted automatically or one by one, or type feedback to
// keep planning.
func PlanQuestion(path, plan string) dialog.Question {
	return dialog.Question{
		Kind:  dialog.QuestionPlanApproval,
		Title: "Plan Approval",
		Text:  plan,
		Options: []dialog.Option{
			{ID: PlanApproveAutoEdit, Label: "Yes, automatically accept edits", Description: "Approves plan and allows tools to run automatically"},
			{ID: PlanApproveDefault, Label: "Yes, manually accept edits", Description: "Approves plan but requires confirmation for each tool"},
		},
		FreeText: true,
	}
}

func (c *exitPlanModeCall) settle(a dialog.Answer) Result {
	if a.Declined {
		return Result{Output: "User cancelled the plan approval dialog. The plan was not approved and you are still in Plan Mode.", Display: "Cancelled"}
	}
	for _, id := range a.Chosen {
		if mode, description, ok := approvedMode(id); ok {
			return Result{
				Output:       fmt.Sprintf("Plan approved. Switching to %s.\n\nThe approved implementation plan is stored at: %s\nRead and follow the plan strictly during implementation.", description, c.path),
				Display:      "Plan approved: " + c.path,
				Mode:         mode,
				ApprovedPlan: c.path,
			}
		}
	}
	if feedback := strings.TrimSpace(a.Text); feedback != "" {
		return Result{
			Output:  fmt.Sprintf("Plan rejected. User feedback: %s\n\nThe plan is stored at: %s\nRevise the plan based on the feedback.", feedback, c.path),
			Display: "Feedback: " + feedback,
		}
	}
	return Result{
		Output:  fmt.Sprintf("Plan rejected. No feedback provided.\n\nThe plan is stored at: %s\nAsk the user for specific feedback on how to improve the plan.", c.path),
		Display: "Rejected (no feedback)",
	}
}

// settleUnattended approves the plan where nobody can be asked, into
// the mode the session had before plan mode and never a more permissive
// one: Gemini CLI 0.61 approves into yolo there, which would let a
// model that plans run anything unasked. A session that started in plan
// mode stays in it. The model is told which, and why.
func (c *exitPlanModeCall) settleUnattended() Result {
	if c.before == "" || c.before == dialog.ApprovalPlan {
		return Result{
			Output:  fmt.Sprintf("The plan was not approved: nobody can be asked in this run, and it started in Plan Mode, so it stays in Plan Mode (only plans may be written, and commands are refused).\n\nThe plan is stored at: %s", c.path),
			Display: "Not approved: the run stays in Plan Mode",
		}
	}
	description := modeDescription(c.before)
	return Result{
		Output:       fmt.Sprintf("Plan approved. Nobody can be asked in this run, so it returns to the mode it had before Plan Mode, not a more permissive one: %s. A tool call that this mode would ask about is refused.\n\nThe approved implementation plan is stored at: %s\nRead and follow the plan strictly during implementation.", description, c.path),
		Display:      "Plan approved: " + c.path,
		Mode:         c.before,
		ApprovedPlan: c.path,
	}
}

// approvedMode is the mode the approval id leaves plan mode for, with
// its description; false for an id that approves none.
func approvedMode(id string) (mode dialog.ApprovalMode, description string, ok bool) {
	switch mode := dialog.ApprovalMode(id); mode {
	case dialog.ApprovalAutoEdit, dialog.ApprovalDefault:
		return mode, modeDescription(mode), true
	}
	return "", "", false
}

// modeDescription is Gemini CLI's description of mode
// (getApprovalModeDescription).
func modeDescription(mode dialog.ApprovalMode) string {
	switch mode {
	case dialog.ApprovalAutoEdit:
		return "Auto-Edit mode (edits will be applied automatically)"
	case dialog.ApprovalDefault:
		return "Default mode (edits will require confirmation)"
	case dialog.ApprovalYolo:
		return "YOLO mode (all tool calls auto-approved)"
	}
	return string(mode)
}
