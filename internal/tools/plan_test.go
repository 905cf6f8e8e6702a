package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// The planning tools are declared as Gemini CLI declares them
// (definitions/model-family-sets, getExitPlanModeDeclaration), word for
// word, and offered only while plan mode is enabled.
func TestPlanToolDeclarations(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	opts := Options{Plan: PlanOptions{Enabled: true}}
	enter := tw.tool(EnterPlanModeName, opts).Declaration()
	if enter.Description != "Switch to Plan Mode to safely research, design, and plan complex changes using read-only tools." ||
		!reflect.DeepEqual(enter.ParametersJsonSchema, map[string]any{"type": "object", "properties": map[string]any{
			"reason": map[string]any{"type": "string", "description": "Short reason explaining why you are entering plan mode."},
		}}) {
		t.Errorf("enter_plan_mode: %+v", enter)
	}
	exit := tw.tool(ExitPlanModeName, opts).Declaration()
	if !strings.HasPrefix(exit.Description, "Finalizes the planning phase and transitions to implementation by presenting the plan for formal user approval. You MUST reach") ||
		!strings.HasSuffix(exit.Description, "This tool MUST be used to exit Plan Mode before any source code edits can be performed.") ||
		!reflect.DeepEqual(exit.ParametersJsonSchema, map[string]any{"type": "object", "required": []string{"plan_filename"}, "properties": map[string]any{
			"plan_filename": map[string]any{"type": "string", "description": `The filename of the finalized plan (e.g., "feature-x.md"). Do not provide an absolute path.`},
		}}) {
		t.Errorf("exit_plan_mode: %+v", exit)
	}
	for _, tool := range Builtin(Options{Workspace: tw.ws}) {
		if tool.Name() == EnterPlanModeName || tool.Name() == ExitPlanModeName {
			t.Errorf("%s is offered with plan mode off", tool.Name())
		}
	}
}

// enter_plan_mode asks first, switches the session to plan mode and makes
// the plans directory, so that the plan's first write lands.
func TestEnterPlanMode(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	dir := tw.abs(".gemini/plans")
	tool := tw.tool(EnterPlanModeName, Options{Plan: PlanOptions{Enabled: true}})
	call := buildIn(t, tool, dir, map[string]any{"reason": "Starting a complex feature implementation"})
	if c := call.Confirmation(); c == nil || len(c.AllowKeys) != 0 || c.Title != "Enter Plan Mode" {
		t.Errorf("Confirmation %+v: want a question every time", c)
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, "Switching to Plan mode.")
	if res.Mode != dialog.ApprovalPlan || res.Display != "Switching to Plan mode: Starting a complex feature implementation" {
		t.Errorf("Mode %q Display %q", res.Mode, res.Display)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		t.Errorf("the plans directory was not made: %v", err)
	}
}

// exit_plan_mode presents the plan file's text for approval through the
// one question contract, and each answer leads where Gemini CLI's does.
func TestExitPlanModeApproval(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/feature-x.md": "# Plan\n\n1. Add the flag.\n"})
	plan := tw.abs(".gemini/plans/feature-x.md")
	dir := tw.abs(".gemini/plans")
	tool := tw.tool(ExitPlanModeName, Options{Plan: PlanOptions{Enabled: true}})
	for _, tc := range []struct {
		name     string
		answer   dialog.Answer
		mode     dialog.ApprovalMode
		output   string
		asksNext bool
	}{
		{"auto edit", dialog.Answer{Chosen: []string{PlanApproveAutoEdit}}, dialog.ApprovalAutoEdit,
			"Plan approved. Switching to Auto-Edit mode (edits will be applied automatically).\n\nThe approved implementation plan is stored at: " + plan + "\nRead and follow the plan strictly during implementation.", false},
		{"one by one", dialog.Answer{Chosen: []string{PlanApproveDefault}}, dialog.ApprovalDefault,
			"Plan approved. Switching to Default mode (edits will require confirmation).\n\nThe approved implementation plan is stored at: " + plan + "\nRead and follow the plan strictly during implementation.", false},
		{"feedback", dialog.Answer{Text: "Use the existing Logger."}, "",
			"Plan rejected. User feedback: Use the existing Logger.\n\nThe plan is stored at: " + plan + "\nRevise the plan based on the feedback.", true},
		{"no feedback", dialog.Answer{}, "",
			"Plan rejected. No feedback provided.\n\nThe plan is stored at: " + plan + "\nAsk the user for specific feedback on how to improve the plan.", true},
		{"dismissed", dialog.Answer{Declined: true}, "",
			"User cancelled the plan approval dialog. The plan was not approved and you are still in Plan Mode.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []dialog.Question
			ask := func(_ context.Context, q dialog.Question) (dialog.Answer, error) {
				asked = append(asked, q)
				return tc.answer, nil
			}
			res, err := buildIn(t, tool, dir, map[string]any{"plan_filename": "feature-x.md"}).Execute(context.Background(), CallInfo{Ask: ask})
			if err != nil {
				t.Fatal(err)
			}
			wantOutput(t, res, tc.output)
			if res.Mode != tc.mode {
				t.Errorf("Mode %q, want %q", res.Mode, tc.mode)
			}
			if approved := tc.mode != ""; (res.ApprovedPlan == plan) != approved || (!approved && res.ApprovedPlan != "") {
				t.Errorf("ApprovedPlan %q, want %q only when approved", res.ApprovedPlan, plan)
			}
			if len(asked) != 1 || !reflect.DeepEqual(asked[0], PlanQuestion(plan, "# Plan\n\n1. Add the flag.\n")) {
				t.Errorf("asked %+v", asked)
			}
		})
	}
	q := PlanQuestion(plan, "text")
	if q.Kind != "plan_approval" || !q.FreeText || len(q.Options) != 2 || q.Options[0].Label != "Yes, automatically accept edits" || q.Options[1].Label != "Yes, manually accept edits" {
		t.Errorf("the question: %+v", q)
	}
}

// A plan that is not there, is empty or lies outside the plans directory
// is not presented, and the model is told why in Gemini CLI's words; a
// front end that cannot ask leaves the session in plan mode, saying so.
func TestExitPlanModeRefusesWhatCannotBeApproved(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/empty.md": " \n", ".gemini/plans/ok.md": "# Plan\n", "main.go": "package main\n"})
	dir := tw.abs(".gemini/plans")
	tool := tw.tool(ExitPlanModeName, Options{Plan: PlanOptions{Enabled: true}})
	never := func(context.Context, dialog.Question) (dialog.Answer, error) {
		t.Error("asked about a plan that cannot be approved")
		return dialog.Answer{}, errors.New("no")
	}
	exec := func(name string, ask AskFunc) Result {
		t.Helper()
		res, err := buildIn(t, tool, dir, map[string]any{"plan_filename": name}).Execute(context.Background(), CallInfo{Ask: ask})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	wantError(t, exec("missing.md", never), "Plan file does not exist: "+tw.abs(".gemini/plans/missing.md")+". You must create the plan file before requesting approval.")
	wantError(t, exec("empty.md", never), "Plan file is empty. You must write content to the plan file before requesting approval.")
	if res := exec("ok.md", nil); res.Mode != "" || !strings.Contains(res.Error, "You are still in Plan Mode.") {
		t.Errorf("with nobody to ask: %+v", res)
	}
	if got := buildInError(t, tool, dir, map[string]any{"plan_filename": "../../main.go"}); got != "Access denied: plan path (../../main.go) must be within the designated plans directory ("+dir+")." {
		t.Errorf("a path outside the plans directory: %q", got)
	}
	if got := buildInError(t, tool, dir, map[string]any{"plan_filename": " "}); got != "plan_filename is required." {
		t.Errorf("no name: %q", got)
	}
	// The plan named from the project root, or by its absolute path.
	for _, name := range []string{".gemini/plans/ok.md", tw.abs(".gemini/plans/ok.md")} {
		if title := buildIn(t, tool, dir, map[string]any{"plan_filename": name}).Title(); title != "Requesting plan approval for: "+tw.abs(".gemini/plans/ok.md") {
			t.Errorf("%s: %q", name, title)
		}
	}
}

// A plan file is where its symlinks lead, as Gemini CLI resolves it
// (resolveToRealPath): one in the plans directory that leads to a source
// file, or out of the workspace, is not presented as the plan, and the
// model is told it must be in the plans directory.
func TestExitPlanModeFollowsSymlinks(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/real.md": "# Plan\n", "main.md": "# Not a plan\n"})
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := tw.abs(".gemini/plans")
	for name, target := range map[string]string{"source.md": tw.abs("main.md"), "out.md": outside, "alias.md": tw.abs(".gemini/plans/real.md")} {
		platformtest.Symlink(t, target, filepath.Join(dir, name))
	}
	tool := tw.tool(ExitPlanModeName, Options{Plan: PlanOptions{Enabled: true}})
	for _, name := range []string{"source.md", "out.md", tw.abs(".gemini/plans/out.md")} {
		if got := buildInError(t, tool, dir, map[string]any{"plan_filename": name}); got != "Access denied: plan path ("+name+") must be within the designated plans directory ("+dir+")." {
			t.Errorf("%s: %q", name, got)
		}
	}
	if title := buildIn(t, tool, dir, map[string]any{"plan_filename": "alias.md"}).Title(); title != "Requesting plan approval for: "+tw.abs(".gemini/plans/real.md") {
		t.Errorf("a symlink to a plan in the plans directory: %q", title)
	}
}

// Plan mode may write a Markdown file directly in the plans directory,
// named as Gemini CLI's policy allows, and nothing else.
func TestIsPlanFile(t *testing.T) {
	for path, want := range map[string]bool{
		"/p/plans/feature-x.md":  true,
		"/p/plans/feature_2.md":  true,
		"/p/plans/notes.txt":     false,
		"/p/plans/sub/x.md":      false,
		"/p/plans/.md":           false,
		"/p/plans/a b.md":        false,
		"/p/README.md":           false,
		"/p/plans-other/x.md":    false,
		"/p/plans/../secrets.md": false,
	} {
		if got := IsPlanFile("/p/plans", path); got != want {
			t.Errorf("IsPlanFile(%q) = %v, want %v", path, got, want)
		}
	}
	if IsPlanFile("", "/x.md") {
		t.Error("a plan file without a plans directory")
	}
}

// Unattended (headless), as Gemini CLI's non-interactive runs: entering
// plan mode asks nobody, and a valid plan is approved at once; unlike
// them (approved into yolo), into the mode the session had before plan
// mode, with the model told so, and not at all where it started in plan
// mode.
func TestPlanModeUnattended(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/p.md": "# Plan\n"})
	opts := Options{Plan: PlanOptions{Enabled: true, Unattended: true}}
	dir := tw.abs(".gemini/plans")
	if c := buildIn(t, tw.tool(EnterPlanModeName, opts), dir, nil).Confirmation(); c != nil {
		t.Errorf("unattended enter_plan_mode asks: %+v", c)
	}
	plan := tw.abs(".gemini/plans/p.md")
	for before, want := range map[dialog.ApprovalMode]string{
		dialog.ApprovalDefault:  "Plan approved. Nobody can be asked in this run, so it returns to the mode it had before Plan Mode, not a more permissive one: Default mode (edits will require confirmation). A tool call that this mode would ask about is refused.\n\nThe approved implementation plan is stored at: " + plan + "\nRead and follow the plan strictly during implementation.",
		dialog.ApprovalAutoEdit: "Plan approved. Nobody can be asked in this run, so it returns to the mode it had before Plan Mode, not a more permissive one: Auto-Edit mode (edits will be applied automatically). A tool call that this mode would ask about is refused.\n\nThe approved implementation plan is stored at: " + plan + "\nRead and follow the plan strictly during implementation.",
		dialog.ApprovalYolo:     "Plan approved. Nobody can be asked in this run, so it returns to the mode it had before Plan Mode, not a more permissive one: YOLO mode (all tool calls auto-approved). A tool call that this mode would ask about is refused.\n\nThe approved implementation plan is stored at: " + plan + "\nRead and follow the plan strictly during implementation.",
		dialog.ApprovalPlan:     "The plan was not approved: nobody can be asked in this run, and it started in Plan Mode, so it stays in Plan Mode (only plans may be written, and commands are refused).\n\nThe plan is stored at: " + plan,
	} {
		call, err := tw.tool(ExitPlanModeName, opts).(SessionTool).BuildIn(SessionScope{PlansDir: dir, ModeBeforePlan: before}, map[string]any{"plan_filename": "p.md"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Execute(context.Background(), CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		wantOutput(t, res, want)
		wantMode, wantPlan := before, plan
		if before == dialog.ApprovalPlan {
			wantMode, wantPlan = "", ""
		}
		if res.Mode != wantMode || res.ApprovedPlan != wantPlan {
			t.Errorf("before %s: Mode %q, ApprovedPlan %q; want %q, %q", before, res.Mode, res.ApprovedPlan, wantMode, wantPlan)
		}
	}
}

// A planning call built outside a session (a transcript's title) has no
// plans directory: it names the plan as the model did, but presents none,
// and entering plan mode makes no directory.
func TestPlanToolsOutsideASession(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/p.md": "# Plan\n"})
	opts := Options{Plan: PlanOptions{Enabled: true}}
	exit := build(t, tw.tool(ExitPlanModeName, opts), map[string]any{"plan_filename": "p.md"})
	if title := exit.Title(); title != "Requesting plan approval for: p.md" {
		t.Errorf("exit_plan_mode's title without a session: %q", title)
	}
	asked := false
	ask := func(context.Context, dialog.Question) (dialog.Answer, error) {
		asked = true
		return dialog.Answer{Chosen: []string{PlanApproveAutoEdit}}, nil
	}
	if res, err := exit.Execute(context.Background(), CallInfo{Ask: ask}); err == nil || asked {
		t.Errorf("exit_plan_mode without a session ran: %+v, asked %v", res, asked)
	}
	if _, err := build(t, tw.tool(EnterPlanModeName, opts), nil).Execute(context.Background(), CallInfo{}); err == nil {
		t.Error("enter_plan_mode without a session's plans directory succeeded")
	}
}

// buildIn builds tool's call in a session whose plans directory is dir.
func buildIn(t *testing.T, tool Tool, dir string, args map[string]any) Call {
	t.Helper()
	call, err := tool.(SessionTool).BuildIn(SessionScope{PlansDir: dir}, args)
	if err != nil {
		t.Fatalf("BuildIn(%v): %v", args, err)
	}
	return call
}

// buildInError is buildIn's error, which it must have.
func buildInError(t *testing.T, tool Tool, dir string, args map[string]any) string {
	t.Helper()
	_, err := tool.(SessionTool).BuildIn(SessionScope{PlansDir: dir}, args)
	if err == nil {
		t.Fatalf("BuildIn(%v) succeeded", args)
	}
	return err.Error()
}

// exit_plan_mode presents its plan: the front ends open the file for the
// user to read while they approve it, knowing the call by that alone.
func TestExitPlanModePresentsItsPlan(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/p.md": "# Plan\n"})
	opts := Options{Plan: PlanOptions{Enabled: true}}
	tool := tw.tool(ExitPlanModeName, opts)
	call, err := tool.(SessionTool).BuildIn(SessionScope{PlansDir: tw.abs(".gemini/plans")}, map[string]any{"plan_filename": "p.md"})
	if err != nil {
		t.Fatal(err)
	}
	var d dialog.ToolCall
	Present(tool, call, &d)
	if !d.PresentsPlan || d.Path != tw.abs(".gemini/plans/p.md") || d.Todos != nil {
		t.Errorf("exit_plan_mode is presented as %+v, want its plan", d)
	}
}
