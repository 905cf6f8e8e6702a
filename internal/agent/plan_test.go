package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// diskLander lands every change on disk, recording whether it was to ask.
type diskLander struct{ asked []bool }

func (d *diskLander) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	d.asked = append(d.asked, req.Ask)
	dec, err := tools.LandOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: dec}, err
}

// planAsker answers the plan approval with one of its options.
type planAsker struct {
	choose string
	asked  []dialog.AskRequest
}

func (p *planAsker) Ask(_ context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	p.asked = append(p.asked, req)
	return dialog.Answer{Chosen: []string{p.choose}}, nil
}

// A whole plan-mode session with the real tools: enter_plan_mode asks
// and switches the session (a ModeEvent); in plan mode the model's
// write_file of a source file and its shell command are refused in
// Gemini CLI's words, while the plan file lands without asking;
// exit_plan_mode asks for approval through the Asker, and the approval
// (edits accepted automatically) switches the session to auto_edit, so
// the next prompt's edit lands without asking.
func TestPlanModeSession(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(root, "main.go")
	if err := os.WriteFile(main, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The plans directory lies outside the workspace, as Gemini CLI's
	// does (~/.gemini/tmp/<project>/<session>/plans).
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plans := filepath.Join(home, "tmp", "project", "session", "plans")
	var plansOf []string
	plansDir := func(id string) (string, error) {
		plansOf = append(plansOf, id)
		return plans, nil
	}
	write := func(path, content string) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call(tools.WriteFileName, map[string]any{"file_path": path, "content": content}))
	}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.EnterPlanModeName, map[string]any{"reason": "a new flag"})),
		write("main.go", "package main // changed\n"),
		geminitest.CallTurn(geminitest.Call(tools.ShellName, map[string]any{"command": "touch x"})),
		write(filepath.Join(plans, "flag.md"), "# Plan\n\n1. Add the flag.\n"),
		geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "flag.md"})),
		geminitest.TextTurn("Planned."),
		write("main.go", "package main // implemented\n"),
		geminitest.TextTurn("Done."),
	)
	lander, asker, conf := &diskLander{}, &planAsker{choose: tools.PlanApproveAutoEdit}, always(dialog.ProceedOnce)
	ui := front{lander: lander, confirmer: conf, asker: asker}
	a, _ := newAgent(t, srv, agent.Config{
		Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true}})...),
		Workspace: ws, PlansDir: plansDir})
	s := a.NewSession()

	res, evs := ui.prompt(t, s, "Plan a new flag")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var modes []dialog.ApprovalMode
	for _, ev := range only[dialog.ModeEvent](evs) {
		modes = append(modes, ev.Mode)
	}
	if !slices.Equal(modes, []dialog.ApprovalMode{dialog.ApprovalPlan, dialog.ApprovalAutoEdit}) {
		t.Errorf("mode events %v, want plan then auto_edit", modes)
	}
	if got := conf.asked(); len(got) != 1 || got[0].Title != "Enter Plan Mode" {
		t.Errorf("asked %+v, want only whether to enter plan mode", got)
	}
	reqs := srv.Requests()
	errorOf := func(i int) string {
		r := responses(t, reqs[i])
		if len(r) != 1 {
			t.Fatalf("request %d answers %d calls", i, len(r))
		}
		msg, _ := r[0].Response["error"].(string)
		return msg
	}
	if got := errorOf(2); got != "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files." {
		t.Errorf("write_file of main.go in plan mode: %q", got)
	}
	if got := errorOf(3); got != "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked." {
		t.Errorf("run_shell_command in plan mode: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("the shell command ran in plan mode")
	}
	if data, _ := os.ReadFile(main); string(data) != "package main\n" {
		t.Errorf("main.go changed in plan mode: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(plans, "flag.md")); string(data) != "# Plan\n\n1. Add the flag.\n" {
		t.Errorf("the plan file holds %q", data)
	}
	out, _ := responses(t, reqs[5])[0].Response["output"].(string)
	if !strings.HasPrefix(out, "Plan approved. Switching to Auto-Edit mode") {
		t.Errorf("exit_plan_mode answered %q", out)
	}
	if len(asker.asked) != 1 || asker.asked[0].Question.Kind != dialog.QuestionPlanApproval || asker.asked[0].Question.Text != "# Plan\n\n1. Add the flag.\n" || asker.asked[0].SessionID != s.ID() {
		t.Errorf("the plan approval asked %+v", asker.asked)
	}
	if s.ApprovalMode() != dialog.ApprovalAutoEdit || a.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("after approval: the session's mode %q, the agent's %q; want only the session in auto_edit", s.ApprovalMode(), a.ApprovalMode())
	}
	if got := s.ApprovedPlan(); got != filepath.Join(plans, "flag.md") {
		t.Errorf("the session's approved plan is %q", got)
	}
	if len(plansOf) != 1 || plansOf[0] != s.ID() {
		t.Errorf("the plans directory was asked for sessions %v, want once, for %s", plansOf, s.ID())
	}
	if roots := ws.Roots(); len(roots) != 1 || roots[0] != root {
		t.Errorf("the plans directory became a root: %v", roots)
	}

	// The model is told of the tools as the mode has them.
	for i, want := range map[int]struct {
		enter, exit, planWrites bool
	}{0: {true, false, false}, 1: {false, true, true}, 4: {false, true, true}, 5: {true, false, false}} {
		decls := map[string]string{}
		for _, tool := range reqs[i].Tools {
			for _, d := range tool.FunctionDeclarations {
				decls[d.Name] = d.Description
			}
		}
		_, enter := decls[tools.EnterPlanModeName]
		_, exit := decls[tools.ExitPlanModeName]
		planWrites := strings.HasPrefix(decls[tools.WriteFileName], "ONLY FOR PLANS: ") && strings.Contains(decls[tools.ReplaceName], "plans directory: "+plans+"/.")
		if enter != want.enter || exit != want.exit || planWrites != want.planWrites {
			t.Errorf("request %d declares enter_plan_mode %v, exit_plan_mode %v, write_file and replace for plans only %v; want %+v", i, enter, exit, planWrites, want)
		}
		// The system instruction has Gemini CLI's planning workflow while
		// the session plans, naming the plans directory and the tools
		// that run.
		system := reqs[i].SystemInstruction.Parts[0].Text
		workflow := strings.Contains(system, "# Active Approval Mode: Plan") &&
			strings.Contains(system, "- Save your plans as Markdown (.md) files ONLY within: `"+plans+"/`") &&
			strings.Contains(system, "  <tool>`read_file`</tool>\n") && !strings.Contains(system, "<tool>`run_shell_command`</tool>")
		if workflow != want.planWrites {
			t.Errorf("request %d: the planning workflow in the system instruction %v, want %v:\n%s", i, workflow, want.planWrites, system)
		}
	}

	if res, _ := ui.prompt(t, s, "Implement it"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if data, _ := os.ReadFile(main); string(data) != "package main // implemented\n" {
		t.Errorf("the implementation's edit did not land: %q", data)
	}
	// The plan file landed without asking, and so did the edit in auto_edit.
	if decls := srv.Requests()[6].Tools[0].FunctionDeclarations; slices.ContainsFunc(decls, func(d *genai.FunctionDeclaration) bool {
		return d.Name == tools.ExitPlanModeName || strings.HasPrefix(d.Description, "ONLY FOR PLANS")
	}) {
		t.Error("after the plan's approval the model is still told of plan mode's tools")
	}
	if !slices.Equal(lander.asked, []bool{false, false}) {
		t.Errorf("landings asked %v, want neither asked", lander.asked)
	}

	// The agent's mode set anew (the user's choice for every session)
	// overrides the session's own.
	a.SetApprovalMode(dialog.ApprovalDefault)
	if s.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("after SetApprovalMode the session's mode is %q", s.ApprovalMode())
	}
}

// In a folder that is not trusted, as in Gemini CLI, an approved plan
// cannot lead into auto_edit: the session continues in default, and the
// model is told.
func TestApprovedPlanInAnUntrustedFolder(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plans := filepath.Join(root, ".gemini", "plans")
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plans, "p.md"), []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "p.md"})), geminitest.TextTurn("ok"))
	ui := front{asker: &planAsker{choose: tools.PlanApproveAutoEdit}}
	a, _ := newAgent(t, srv, agent.Config{
		Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true}})...),
		Workspace: ws, PlansDir: func(string) (string, error) { return plans, nil }, Untrusted: true})
	s := a.NewSession()
	s.SetApprovalMode(dialog.ApprovalPlan)
	_, evs := ui.prompt(t, s, "done planning")
	if s.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("the session's mode is %q, want default", s.ApprovalMode())
	}
	if got := only[dialog.ModeEvent](evs); len(got) != 1 || got[0].Mode != dialog.ApprovalDefault {
		t.Errorf("mode events %+v", got)
	}
	out, _ := responses(t, srv.Requests()[1])[0].Response["output"].(string)
	if !strings.Contains(out, "The folder is not trusted, so the approval mode is default, not auto_edit") {
		t.Errorf("exit_plan_mode answered %q", out)
	}
}

// Plan mode is read-only through symlinks: a plan-named file in the
// plans directory that leads to a source file is not a plan file, so
// write_file and replace of it are refused in plan mode, and one that
// leads out of the workspace is neither read nor written, the model
// told why; nothing it leads to changes.
func TestPlanModeThroughSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plans := filepath.Join(root, "plans")
	files := map[string]string{filepath.Join(root, "main.md"): "# Source\n", filepath.Join(outside, "creds.md"): "secret-token\n"}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"source.md": filepath.Join(root, "main.md"), "creds.md": filepath.Join(outside, "creds.md")} {
		platformtest.Symlink(t, target, filepath.Join(plans, name))
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call(tools.WriteFileName, map[string]any{"file_path": "plans/source.md", "content": "# Plan\n"}),
			geminitest.Call(tools.ReplaceName, map[string]any{"file_path": "plans/source.md", "old_string": "Source", "new_string": "Plan"}),
			geminitest.Call(tools.ReadFileName, map[string]any{"path": "plans/creds.md"}),
			geminitest.Call(tools.WriteFileName, map[string]any{"file_path": "plans/creds.md", "content": "# Plan\n"}),
		),
		geminitest.TextTurn("Planned."),
	)
	ui := front{lander: &diskLander{}, confirmer: always(dialog.ProceedOnce)}
	a, _ := newAgent(t, srv, agent.Config{
		Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true}})...),
		Workspace: ws,
		PlansDir:  func(string) (string, error) { return plans, nil }})
	a.SetApprovalMode(dialog.ApprovalPlan)
	if res, _ := ui.prompt(t, a.NewSession(), "Plan it"); res.Err != nil {
		t.Fatal(res.Err)
	}
	fr := responses(t, srv.Requests()[1])
	if len(fr) != 4 {
		t.Fatalf("responses %+v", fr)
	}
	errorOf := func(i int) string { msg, _ := fr[i].Response["error"].(string); return msg }
	for i := range 2 {
		if got := errorOf(i); !strings.HasPrefix(got, "You are in Plan Mode and cannot modify source code.") {
			t.Errorf("%s of a plan-named symlink to a source file: %q", fr[i].Name, got)
		}
	}
	for i := 2; i < 4; i++ {
		if got := errorOf(i); !strings.Contains(got, "resolves to "+filepath.Join(outside, "creds.md")+", outside the workspace roots") || strings.Contains(toJSON(fr[i].Response), "secret-token") {
			t.Errorf("%s of a symlink out of the workspace: %+v", fr[i].Name, fr[i].Response)
		}
	}
	for path, content := range files {
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s = %q, want %q", path, b, content)
		}
	}
}

// The model is offered enter_plan_mode as Gemini CLI's policies say for
// the front end: yolo.toml denies it in yolo where someone could be asked
// (editors, ACP), so there it is left out; headless yolo, auto_edit and
// default offer it.
func TestYoloOffersPlanModeOnlyHeadless(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode        dialog.ApprovalMode
		interactive bool
		offered     bool
	}{
		{dialog.ApprovalYolo, true, false},
		{dialog.ApprovalYolo, false, true},
		{dialog.ApprovalAutoEdit, true, true},
		{dialog.ApprovalDefault, true, true},
	} {
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("Hi."))
		a, _ := newAgent(t, srv, agent.Config{
			Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true, Unattended: !tc.interactive}})...),
			Workspace: ws,
			Policy:    policy.Load(nil, tc.interactive),
		})
		a.SetApprovalMode(tc.mode)
		if res, _ := prompt(t, a.NewSession(), "hello"); res.Err != nil {
			t.Fatal(res.Err)
		}
		got := slices.ContainsFunc(srv.Requests()[0].Tools[0].FunctionDeclarations, func(d *genai.FunctionDeclaration) bool { return d.Name == tools.EnterPlanModeName })
		if got != tc.offered {
			t.Errorf("%s (interactive %v): enter_plan_mode offered %v, want %v", tc.mode, tc.interactive, got, tc.offered)
		}
	}
}
