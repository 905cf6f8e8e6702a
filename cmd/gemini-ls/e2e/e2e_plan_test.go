package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Gemini CLI's plan-mode refusal of an edit, which the model reads, and
// its answer to a shell command there: plan mode does not offer the
// shell (0.61's plan.toml), so the call is not found, in 0.61's words.
const (
	planEditRefusal   = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."
	planShellNotFound = `Tool "run_shell_command" not found. Did you mean one of: "update_topic", "grep_search", "replace"?`
)

// planWrite is the model writing its plan, name, where plan mode's system
// instruction says plans go: the session's plans directory.
func planWrite(name, content string) geminitest.Turn {
	return geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": filepath.Join(plansDirTold(req), name), "content": content}))
	}}
}

// plansDirTold is the plans directory plan mode's system instruction
// names; "" when it names none.
func plansDirTold(req geminitest.Request) string {
	if req.SystemInstruction == nil || len(req.SystemInstruction.Parts) == 0 {
		return ""
	}
	_, after, _ := strings.Cut(req.SystemInstruction.Parts[0].Text, "Markdown (.md) files ONLY within: `")
	dir, _, _ := strings.Cut(after, "`")
	return strings.TrimSuffix(dir, "/")
}

// sessionPlan is the plan file name of a session (id; "*" for any) where
// Gemini CLI keeps it under home: ~/.gemini/tmp/<project>/<session>/plans.
// It must be the one such file.
func sessionPlan(t *testing.T, home, id, name string) string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", id, "plans", name))
	if err != nil || len(found) != 1 {
		t.Fatalf("plan files %s in %s/.gemini/tmp/*/%s/plans: %v, %v", name, home, id, found, err)
	}
	return found[0]
}

// envHome is the HOME env gives (its last).
func envHome(env []string) string {
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return home
}

// `run --approval-mode plan` refuses every edit in Gemini CLI's words,
// and has no shell for the model (0.61's plan.toml leaves it out: a call
// of it is not found, as in 0.61), while the plan file in the session's
// plans directory (~/.gemini/tmp/<project>/<session>/plans) is written
// and files are read; nothing lands in the project.
func TestRunPlanModeRefusesWrites(t *testing.T) {
	h := newHeadless(t, editAndShellFiles, editAndShellTurns()[0],
		geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
			return geminitest.CallTurn(
				geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
				geminitest.Call("write_file", map[string]any{"file_path": filepath.Join(plansDirTold(req), "change-things.md"), "content": "# Plan\n\n1. Change a.txt.\n"}),
			)
		}},
		geminitest.TextTurn("Planned."),
	)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "plan", "-p", "change things")
	r.wantExit(t, 0)
	if r.stdout != "Planned.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	fr := h.responses(1)
	if len(fr) != 4 {
		t.Fatalf("function responses = %+v", fr)
	}
	for i, want := range []string{planEditRefusal, planEditRefusal, planEditRefusal, planShellNotFound} {
		if got := responseError(fr[i]); got != want {
			t.Errorf("%s response %d error = %q, want %q", fr[i].Name, i, got, want)
		}
	}
	if got := h.disk("a.txt"); got != "one\ntwo\n" {
		t.Errorf("a.txt = %q, want it unchanged", got)
	}
	if h.exists("new/file.txt") || h.exists("marker") {
		t.Error("plan mode let a write or the shell command through")
	}
	fr = h.responses(2)
	if len(fr) != 2 || !strings.Contains(responseOutput(fr[0]), "two") || responseError(fr[1]) != "" {
		t.Errorf("the read and the plan's write: %+v, %+v", fr[0].Response, fr[1].Response)
	}
	if b, _ := os.ReadFile(sessionPlan(t, envHome(h.env), "*", "change-things.md")); string(b) != "# Plan\n\n1. Change a.txt.\n" {
		t.Errorf("the plan file = %q", b)
	}
	if h.exists(".gemini/plans") {
		t.Error("a plans directory was made in the project")
	}
}

// With general.plan.enabled false, plan mode is not entered: the run
// warns and goes on in the default mode, as Gemini CLI does, and the
// planning tools are not offered.
func TestRunPlanModeOff(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"plan": {"enabled": false}}}`}, geminitest.TextTurn("Hi."))
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "plan", "-p", "hello")
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, `the approval mode is "default", not "plan": general.plan.enabled is false`) {
		t.Errorf("stderr = %q", r.stderr)
	}
	if firstDeclares(h.model, "enter_plan_mode") || firstDeclares(h.model, "exit_plan_mode") {
		t.Error("the planning tools were offered with plan mode off")
	}
}

// A plan-mode session over ACP: enter_plan_mode asks (a permission
// request) and switches the session, a current_mode_update says so;
// the model's write_file of a source file and its shell command are
// refused in Gemini CLI's words; the plan file is written without
// asking; exit_plan_mode's call shows the plan file as its location and
// the plan as the session's plan, and asks for approval (a permission
// request with Gemini CLI's options). The user picks "automatically
// accept edits": the session switches to auto edit (current_mode_update),
// and the next prompt's edit lands without asking.
func TestACPPlanMode(t *testing.T) {
	write := func(path, content string) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": path, "content": content}))
	}
	home := t.TempDir()
	h := startACP(t, acpSetup{files: map[string]string{"main.go": "package main\n"}, env: trustTheWorkspace(), home: home},
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", map[string]any{"reason": "a new flag"})),
		write("main.go", "package main // changed\n"),
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"})),
		planWrite("flag.md", "# Plan\n\n1. Add the flag.\n2. Test it.\n"),
		geminitest.CallTurn(geminitest.Call("exit_plan_mode", map[string]any{"plan_filename": "flag.md"})),
		geminitest.TextTurn("Planned."),
		write("main.go", "package main // implemented\n"),
		geminitest.TextTurn("Done."),
	)
	h.mustPrompt("Plan a new flag", sdk.StopReasonEndTurn)

	var modes []string
	var plans [][]sdk.PlanEntry
	for _, u := range h.since(0) {
		if u.CurrentModeUpdate != nil {
			modes = append(modes, string(u.CurrentModeUpdate.CurrentModeId))
		}
		if u.Plan != nil {
			plans = append(plans, u.Plan.Entries)
		}
	}
	if !slices.Equal(modes, []string{"plan", "autoEdit"}) {
		t.Errorf("current_mode_updates %v, want plan, then autoEdit", modes)
	}
	perms := h.client.Permissions()
	if len(perms) != 2 || perms[0].ToolCall.Title == nil || *perms[0].ToolCall.Title != "a new flag" {
		t.Fatalf("permission requests %+v, want enter_plan_mode's and the plan's approval", perms)
	}
	var options []string
	for _, o := range perms[1].Options {
		options = append(options, o.Name)
	}
	if strings.Join(options, "|") != "Yes, automatically accept edits|Yes, manually accept edits|Decline" {
		t.Errorf("the plan's approval offers %q", options)
	}
	responses := func(i int) map[string]any {
		r := h.functionResponses(i)
		return r[len(r)-1]
	}
	if got := responses(2)["error"]; got != planEditRefusal {
		t.Errorf("write_file of main.go in plan mode: %v", got)
	}
	if got := responses(3)["error"]; got != planShellNotFound {
		t.Errorf("run_shell_command in plan mode: %v", got)
	}
	if _, err := os.Stat(h.path("marker")); err == nil {
		t.Error("the shell command ran in plan mode")
	}
	if b, _ := os.ReadFile(h.path("main.go")); string(b) != "package main\n" {
		t.Errorf("main.go changed in plan mode: %q", b)
	}
	// The plan is the session's, where Gemini CLI keeps it.
	plan := sessionPlan(t, home, string(h.session), "flag.md")
	if b, _ := os.ReadFile(plan); string(b) != "# Plan\n\n1. Add the flag.\n2. Test it.\n" {
		t.Errorf("the plan file holds %q", b)
	}
	if got, _ := responses(5)["output"].(string); !strings.HasPrefix(got, "Plan approved. Switching to Auto-Edit mode") {
		t.Errorf("exit_plan_mode, approved: %v", responses(5))
	}
	want := []sdk.PlanEntry{{Content: "Add the flag.", Priority: "medium", Status: "pending"}, {Content: "Test it.", Priority: "medium", Status: "pending"}}
	if len(plans) != 1 || !reflect.DeepEqual(plans[0], want) {
		t.Errorf("plans %+v, want %+v", plans, want)
	}
	var exit *sdk.SessionUpdateToolCall
	for _, c := range h.client.ToolCalls() {
		if strings.HasPrefix(c.Title, "Requesting plan approval") {
			exit = &c
		}
	}
	if exit == nil || len(exit.Locations) != 1 || exit.Locations[0].Path != plan {
		t.Errorf("exit_plan_mode's tool call %+v, want the plan as its location", exit)
	}

	asked := len(h.client.Permissions())
	h.mustPrompt("Implement it", sdk.StopReasonEndTurn)
	if b, _ := os.ReadFile(h.path("main.go")); string(b) != "package main // implemented\n" {
		t.Errorf("the implementation's edit did not land: %q", b)
	}
	if len(h.client.Permissions()) != asked {
		t.Errorf("auto edit asked: %+v", h.client.Permissions()[asked:])
	}

	// /plan, without a goal, goes back to plan mode and shows the plan
	// approved, as Gemini CLI's does.
	h.mustPrompt("/plan", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); !strings.Contains(got, "Switched to Plan Mode.\n\nApproved Plan: flag.md\n\n# Plan\n\n1. Add the flag.\n2. Test it.\n") {
		t.Errorf("/plan answered %q", got)
	}
}

// A plan-mode session over LSP (our plugins' profile): enter_plan_mode
// is confirmed (gemini/confirm) and switches the session, which a `mode`
// update says; the model's write_file of a source file and its shell
// command are refused in Gemini CLI's words; the plan file is written
// without asking; exit_plan_mode opens the plan in the editor
// (window/showDocument) and asks for approval (gemini/ask, kind
// plan_approval). The user picks "automatically accept edits": a `mode`
// update says auto_edit, and the next prompt's edit lands without asking.
func TestLSPPlanMode(t *testing.T) {
	write := func(path, content string) geminitest.Turn {
		return call("write_file", map[string]any{"file_path": path, "content": content})
	}
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"main.go": "package main\n"}, env: append(trustTheWorkspace(), "HOME="+home)},
		call("enter_plan_mode", map[string]any{"reason": "a new flag"}),
		write("main.go", "package main // changed\n"),
		call("run_shell_command", map[string]any{"command": "touch marker"}),
		planWrite("flag.md", "# Plan\n\n1. Add the flag.\n"),
		call("exit_plan_mode", map[string]any{"plan_filename": "flag.md"}),
		geminitest.TextTurn("Planned."),
		write("main.go", "package main // implemented\n"),
		geminitest.TextTurn("Done."),
	)
	first := h.prompt(map[string]any{"prompt": "Plan a new flag"})
	if first.StopReason != "end_turn" {
		t.Fatalf("the prompt ended %+v", first)
	}
	var modes []string
	for _, u := range messagesAs[struct {
		Kind string `json:"kind"`
		Mode string `json:"mode"`
	}](h, "gemini/update") {
		if u.Kind == "mode" {
			modes = append(modes, u.Mode)
		}
	}
	if !slices.Equal(modes, []string{"plan", "auto_edit"}) {
		t.Errorf("mode updates %v, want plan, then auto_edit", modes)
	}
	asks := messagesAs[struct {
		Kind    string `json:"kind"`
		Options []struct {
			ID string `json:"id"`
		} `json:"options"`
	}](h, "gemini/ask")
	if len(asks) != 1 || asks[0].Kind != "plan_approval" || len(asks[0].Options) != 2 || asks[0].Options[0].ID != "auto_edit" {
		t.Errorf("gemini/ask %+v, want the plan's approval", asks)
	}
	if got := h.toolOutputs(2); len(got) != 1 || got[0] != "error: "+planEditRefusal {
		t.Errorf("write_file of main.go in plan mode: %q", got)
	}
	if got := h.toolOutputs(3); len(got) != 1 || got[0] != "error: "+planShellNotFound {
		t.Errorf("run_shell_command in plan mode: %q", got)
	}
	if got, open := h.client.Buffer(h.path("main.go")); got != "" || open || h.readFile("main.go") != "package main\n" {
		t.Errorf("main.go changed in plan mode: %q", got)
	}
	if _, err := os.Stat(h.path("marker")); err == nil {
		t.Error("the shell command ran in plan mode")
	}
	// The plan, outside the workspace folders, is created by
	// workspace/applyEdit in the session's plans directory and shown.
	plan := sessionPlan(t, home, first.SessionID, "flag.md")
	if got, _ := h.client.Buffer(plan); got != "# Plan\n\n1. Add the flag.\n" {
		t.Errorf("the plan's buffer holds %q", got)
	}
	docs := h.shownDocuments()
	if len(docs) != 1 || docs[0].URI != string(uri.File(plan)) {
		t.Errorf("shown documents %+v, want the plan", docs)
	}
	if got := h.toolOutputs(5); len(got) != 1 || !strings.HasPrefix(got[0], "Plan approved. Switching to Auto-Edit mode") {
		t.Errorf("exit_plan_mode, approved: %q", got)
	}

	asked := len(h.client.Messages("gemini/confirm"))
	h.prompt(map[string]any{"prompt": "Implement it", "sessionId": first.SessionID})
	h.wantBuffer("main.go", "package main // implemented\n")
	if n := len(h.client.Messages("gemini/confirm")); n != asked {
		t.Errorf("auto edit asked %d more time(s)", n-asked)
	}
}

// planAttack is a model that plays the escalation through plan mode: it
// enters plan mode, writes a plan, approves it with nobody to ask, then
// runs a command that makes a marker and writes a file.
func planAttack() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", nil)),
		planWrite("p.md", "# Plan\n\n1. Make the marker.\n"),
		geminitest.CallTurn(geminitest.Call("exit_plan_mode", map[string]any{"plan_filename": "p.md"})),
		geminitest.CallTurn(
			geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"}),
			geminitest.Call("write_file", map[string]any{"file_path": "escalated.txt", "content": "written\n"}),
		),
		geminitest.TextTurn("Done."),
	}
}

// Headless, an unattended plan approval never raises the run above the
// mode it started in (Gemini CLI 0.61 approves into yolo there): leaving
// plan mode goes back to the run's own mode, and the model is told so in
// exit_plan_mode's result. In the default mode the command and the write
// are refused; under auto_edit the write lands, as auto_edit lets it, and
// the command, which only a person may allow, is refused; under plan the
// run stays in plan mode, the write is refused in its words, and the
// command is not found (plan mode offers no shell).
func TestRunPlanApprovalNeverEscalates(t *testing.T) {
	for _, tc := range []struct {
		mode, told               string
		shellRefusal, writeError string // "" for any refusal; writeError "-" for none
	}{
		{mode: "default", told: "returns to the mode it had before Plan Mode, not a more permissive one: Default mode"},
		{mode: "auto_edit", told: "returns to the mode it had before Plan Mode, not a more permissive one: Auto-Edit mode", writeError: "-"},
		{mode: "plan", told: "The plan was not approved: nobody can be asked in this run, and it started in Plan Mode, so it stays in Plan Mode", shellRefusal: planShellNotFound, writeError: planEditRefusal},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h := newHeadless(t, nil, planAttack()...)
			r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", tc.mode, "-p", "make a marker, with a plan")
			if r.stdout != "Done.\n" {
				t.Errorf("stdout = %q, stderr = %q", r.stdout, r.stderr)
			}
			if exit := h.responses(3); len(exit) != 1 {
				t.Errorf("exit_plan_mode's responses: %d", len(exit))
			} else if !strings.Contains(responseOutput(exit[0]), tc.told) {
				t.Errorf("exit_plan_mode told the model %+v, want %q", exit[0].Response, tc.told)
			}
			if h.exists("marker") {
				t.Error("the command ran after the unattended plan approval")
			}
			fr := h.responses(4)
			if len(fr) != 2 {
				t.Fatalf("function responses = %+v", fr)
			}
			if got := responseError(fr[0]); got == "" || tc.shellRefusal != "" && got != tc.shellRefusal {
				t.Errorf("the command's response: %+v, want refused %q", fr[0].Response, tc.shellRefusal)
			}
			switch got := responseError(fr[1]); {
			case tc.writeError == "-":
				if got != "" || h.disk("escalated.txt") != "written\n" {
					t.Errorf("auto_edit's write: error %q, file %q", got, h.disk("escalated.txt"))
				}
			case got == "" || tc.writeError != "" && got != tc.writeError:
				t.Errorf("the write's response: %+v, want refused %q", fr[1].Response, tc.writeError)
			case h.exists("escalated.txt"):
				t.Error("the write landed after the unattended plan approval")
			}
		})
	}
}

// /plan over ACP switches the session to plan mode, which a
// current_mode_update says, and sends the goal as the prompt, answered
// in plan mode.
func TestACPPlanCommand(t *testing.T) {
	h := startACP(t, acpSetup{env: trustTheWorkspace()},
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"})),
		geminitest.TextTurn("Researching."))
	h.mustPrompt("/plan add a flag", sdk.StopReasonEndTurn)
	var modes []string
	for _, u := range h.since(0) {
		if u.CurrentModeUpdate != nil {
			modes = append(modes, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	if !slices.Equal(modes, []string{"plan"}) {
		t.Errorf("current_mode_updates %v, want plan", modes)
	}
	if first := withoutSessionContext(h.model.Requests()[0].Contents); first[len(first)-1].Parts[0].Text != "add a flag" {
		t.Errorf("the prompt sent: %+v", first[len(first)-1].Parts[0])
	}
	if r := h.functionResponses(1); len(r) != 1 || r[0]["error"] != planShellNotFound {
		t.Errorf("the shell command after /plan: %v", r)
	}
}

// initializationOptions choose plan mode as settings do: the model's
// edit is refused, and plan mode off (general.plan.enabled) starts the
// server in default, telling the user why.
func TestLSPPlanModeFromInitializationOptions(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"main.go": "package main\n"}, env: trustTheWorkspace(), opts: map[string]any{"approvalMode": "plan"}},
		call("write_file", map[string]any{"file_path": "main.go", "content": "package main // changed\n"}),
		geminitest.TextTurn("Refused."),
	)
	h.prompt(map[string]any{"prompt": "change main"})
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != "error: "+planEditRefusal {
		t.Errorf("write_file in plan mode: %q", got)
	}

	off := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), opts: map[string]any{"approvalMode": "plan", "general": map[string]any{"plan": map[string]any{"enabled": false}}}})
	if _, err := off.client.WaitMessage(off.ctx, "window/showMessage", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), `the approval mode is \"default\", not \"plan\"`)
	}); err != nil {
		t.Fatal(err)
	}
}

// In an editor's yolo, as in Gemini CLI (yolo.toml denies the planning
// tools where someone could be asked, so its registry leaves them out),
// the model is not offered enter_plan_mode, which would be refused; in
// the default mode it is.
func TestLSPYoloOffersNoPlanMode(t *testing.T) {
	for mode, offered := range map[string]bool{"yolo": false, "default": true} {
		h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), opts: map[string]any{"approvalMode": mode}}, geminitest.TextTurn("Hi."))
		h.prompt(map[string]any{"prompt": "hello"})
		if got := slices.Contains(declared(h.model.Requests(), 0), "enter_plan_mode"); got != offered {
			t.Errorf("%s: enter_plan_mode declared %v, want %v", mode, got, offered)
		}
		if slices.Contains(declared(h.model.Requests(), 0), "exit_plan_mode") {
			t.Errorf("%s: exit_plan_mode declared outside plan mode", mode)
		}
	}
}

// Headless, yolo.toml's rule does not apply (interactive = true), so a
// yolo run declares enter_plan_mode, as Gemini CLI 0.61's does, and the
// model may enter plan mode.
func TestRunYoloOffersPlanMode(t *testing.T) {
	h := newHeadless(t, nil,
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", map[string]any{"reason": "a big change"})),
		geminitest.TextTurn("Planning."),
	)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "change everything")
	r.wantExit(t, 0)
	reqs := h.model.Requests()
	if got := declared(reqs, 0); !slices.Contains(got, "enter_plan_mode") || slices.Contains(got, "exit_plan_mode") {
		t.Errorf("headless yolo declared %q, want enter_plan_mode and not exit_plan_mode", got)
	}
	if got := responseOutput(h.responses(1)[0]); got != "Switching to Plan mode." {
		t.Errorf("enter_plan_mode answered %q (error %q)", got, responseError(h.responses(1)[0]))
	}
	if got := declared(reqs, 1); !slices.Contains(got, "exit_plan_mode") || slices.Contains(got, "enter_plan_mode") {
		t.Errorf("in plan mode the run declared %q, want exit_plan_mode and not enter_plan_mode", got)
	}
}

// A custom general.plan.directory inside the project is where plans go,
// for every session; one that leaves the project is not used, as in
// Gemini CLI: the user is told why, and the session plans in its own
// directory.
func TestRunPlanModeCustomDirectory(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"plan": {"directory": "docs/plans"}}}`},
		planWrite("p.md", "# Plan\n"),
		geminitest.TextTurn("Planned."),
	)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "plan", "-p", "plan it")
	r.wantExit(t, 0)
	if got := h.disk("docs/plans/p.md"); got != "# Plan\n" {
		t.Errorf("the plan in the custom directory = %q (responses %+v)", got, h.responses(1))
	}

	outside := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"plan": {"directory": "../elsewhere"}}}`}, planWrite("p.md", "# Plan\n"), geminitest.TextTurn("Planned."))
	r = outside.runIn(outside.root, append(outside.env, trustTheWorkspace()...), "run", "--approval-mode", "plan", "-p", "plan it")
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, "the custom plans directory is not used") || !strings.Contains(r.stderr, `general.plan.directory "../elsewhere"`) ||
		!strings.Contains(r.stderr, "outside the project root") || !strings.Contains(r.stderr, "each session plans in its own directory instead") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if b, err := os.ReadFile(sessionPlan(t, envHome(outside.env), "*", "p.md")); err != nil || string(b) != "# Plan\n" {
		t.Errorf("the plan in the session's own directory = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(outside.root), "elsewhere")); err == nil {
		t.Error("the plans directory outside the project was made")
	}
}

// planning is the system instruction's mark of plan mode.
const planning = "# Active Approval Mode: Plan"

// A session in plan mode is still in it when a new server process, as
// after an editor restart, resumes it: gemini/resumeSession says so
// (mode), and the model is told it plans.
func TestLSPPlanModeSurvivesARestart(t *testing.T) {
	home := t.TempDir()
	env := append(trustTheWorkspace(), "HOME="+home)
	first := start(t, setup{profile: lsptest.Plugin(), env: env},
		call("enter_plan_mode", map[string]any{"reason": "a new flag"}),
		geminitest.TextTurn("Planning."),
	)
	old := first.prompt(map[string]any{"prompt": "plan a flag"})
	if old.StopReason != "end_turn" {
		t.Fatalf("first prompt: %+v", old)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), env: env}, geminitest.TextTurn("Still planning."))
	var resumed struct {
		Mode string `json:"mode"`
	}
	if err := second.client.Call(second.ctx, "gemini/resumeSession", map[string]any{"sessionId": old.SessionID}, &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.Mode != "plan" {
		t.Errorf("gemini/resumeSession's mode = %q, want plan", resumed.Mode)
	}
	second.prompt(map[string]any{"prompt": "go on", "sessionId": old.SessionID})
	if system := second.model.Requests()[0].SystemInstruction.Parts[0].Text; !strings.Contains(system, planning) {
		t.Errorf("the resumed session's request is not in plan mode:\n%s", system)
	}
}

// session/load after a restart answers with the session's own mode.
func TestACPPlanModeSurvivesARestart(t *testing.T) {
	h := startACP(t, acpSetup{env: trustTheWorkspace()},
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", map[string]any{"reason": "a new flag"})),
		geminitest.TextTurn("Planning."),
	)
	h.mustPrompt("plan a flag", sdk.StopReasonEndTurn)
	id := h.session
	h.restart()
	res, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "plan" {
		t.Errorf("session/load's modes = %+v, want plan current", res.Modes)
	}
}

// `run --resume` continues a session in its own mode: the model is told
// it plans; an --approval-mode given with it wins.
func TestRunResumeContinuesInPlanMode(t *testing.T) {
	h := newHeadless(t, nil,
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", nil)), geminitest.TextTurn("Planning."),
		geminitest.TextTurn("Still planning."),
		geminitest.TextTurn("Told to stop planning."),
	)
	env := append(h.env, trustTheWorkspace()...)
	h.runIn(h.root, env, "run", "-p", "plan a flag").wantExit(t, 0)
	h.runIn(h.root, env, "run", "--resume", "latest", "-p", "go on").wantExit(t, 0)
	reqs := h.model.Requests()
	if system := reqs[2].SystemInstruction.Parts[0].Text; !strings.Contains(system, planning) {
		t.Errorf("the resumed run is not in plan mode:\n%s", system)
	}
	h.runIn(h.root, env, "run", "--resume", "latest", "--approval-mode", "default", "-p", "stop").wantExit(t, 0)
	if system := h.model.Requests()[3].SystemInstruction.Parts[0].Text; strings.Contains(system, planning) {
		t.Errorf("--approval-mode default did not win over the resumed session's plan mode:\n%s", system)
	}
}

// With a client that keeps the files (fs/write_text_file), the plan, in
// the session's plans directory outside the project, is written through
// it.
func TestACPPlanWrittenThroughTheClient(t *testing.T) {
	home := t.TempDir()
	h := startACP(t, acpSetup{env: trustTheWorkspace(), home: home, cfg: editorACP},
		geminitest.CallTurn(geminitest.Call("enter_plan_mode", nil)),
		planWrite("flag.md", "# Plan\n\n1. Add the flag.\n"),
		geminitest.TextTurn("Planned."),
	)
	h.mustPrompt("Plan a new flag", sdk.StopReasonEndTurn)
	dirs, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", string(h.session), "plans"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("the session's plans directory: %v, %v", dirs, err)
	}
	plan := filepath.Join(dirs[0], "flag.md")
	writes := h.client.Writes()
	if len(writes) != 1 || writes[0].Path != plan || writes[0].Content != "# Plan\n\n1. Add the flag.\n" {
		t.Errorf("fs/write_text_file requests %+v, want the plan at %s", writes, plan)
	}
}

// The mode a client chose for a session (session/set_mode) is the
// session's own: saved with its next prompt, it is the mode session/load
// answers with after a restart.
func TestACPChosenModeSurvivesARestart(t *testing.T) {
	h := startACP(t, acpSetup{env: trustTheWorkspace()}, geminitest.TextTurn("Hi."))
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "autoEdit"}); err != nil {
		t.Fatal(err)
	}
	h.mustPrompt("hello", sdk.StopReasonEndTurn)
	id := h.session
	h.restart()
	res, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "autoEdit" {
		t.Errorf("session/load's modes = %+v, want autoEdit current", res.Modes)
	}
}

// A mode chosen after the last prompt is saved when chosen: a restart
// before another prompt loads the session in it.
func TestACPModeChosenAfterThePromptSurvivesARestart(t *testing.T) {
	h := startACP(t, acpSetup{env: trustTheWorkspace()}, geminitest.TextTurn("Hi."))
	h.mustPrompt("hello", sdk.StopReasonEndTurn)
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "autoEdit"}); err != nil {
		t.Fatal(err)
	}
	id := h.session
	h.restart()
	res, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "autoEdit" {
		t.Errorf("session/load's modes = %+v, want autoEdit current", res.Modes)
	}
}

// A general.plan.directory that is a symlink out of the project (here to
// ~/.gemini) is not the plans directory: it resolves outside the project
// root, as Gemini CLI finds it (Storage.getPlansDir), so the run warns
// and plans in the session's own directory instead. Plan mode reads
// nothing through it and writes nothing there: ~/.gemini's credentials
// are not read to the model (outside the workspace), its GEMINI.md is not
// overwritten (not a plan), and the model is told why each call was
// refused.
func TestRunPlanModeSymlinkedDirectoryOutside(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"plan": {"directory": "plans"}}}`},
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "plans/oauth_creds.json"}),
			geminitest.Call("write_file", map[string]any{"file_path": "plans/GEMINI.md", "content": "# Plan\n"}),
		),
		geminitest.TextTurn("Planned."),
	)
	geminiDir := filepath.Join(envHome(h.env), ".gemini")
	writeFiles(t, geminiDir, map[string]string{"oauth_creds.json": `{"refresh_token": "secret-token"}`, "GEMINI.md": "my memory\n"})
	if err := os.Symlink(geminiDir, h.path("plans")); err != nil {
		t.Fatal(err)
	}
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "plan", "-p", "plan it")
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, `general.plan.directory "plans" resolves to `+geminiDir+", which is outside the project root") {
		t.Errorf("stderr = %q", r.stderr)
	}
	fr := h.responses(1)
	if len(fr) != 2 {
		t.Fatalf("function responses = %+v", fr)
	}
	for _, f := range fr {
		// The global GEMINI.md is the one file of ~/.gemini the file tools
		// reach, as in 0.61 (the model keeps cross-project facts there):
		// plan mode refuses its write.
		why := "resolves to " + geminiDir
		if f.Name == "write_file" {
			why = "You are in Plan Mode and cannot modify source code."
		}
		if strings.Contains(responseOutput(f), "secret-token") || !strings.Contains(responseError(f), why) {
			t.Errorf("%s: %+v, want it refused: %s", f.Name, f.Response, why)
		}
	}
	if b, err := os.ReadFile(filepath.Join(geminiDir, "GEMINI.md")); err != nil || string(b) != "my memory\n" {
		t.Errorf("~/.gemini/GEMINI.md = %q, %v; want it untouched", b, err)
	}
	if !strings.Contains(h.model.Requests()[0].SystemInstruction.Parts[0].Text, planning) {
		t.Error("the run does not plan")
	}
	if told := plansDirTold(h.model.Requests()[0]); !strings.HasPrefix(told, filepath.Join(geminiDir, "tmp")+string(filepath.Separator)) {
		t.Errorf("the model was told to plan in %s, want the session's own plans directory", told)
	}
}

// A headless --resume never continues in a mode more permissive than
// the run's own: a session a person set to yolo in an editor (ACP) and
// resumed by `run --resume` with no mode chosen runs in the default
// mode, so the model's command is refused, and the run warns; an
// --approval-mode yolo given with it is the user's choice, and wins.
func TestRunResumeNeverRaisesTheMode(t *testing.T) {
	home := t.TempDir()
	a := startACP(t, acpSetup{env: trustTheWorkspace(), home: home}, geminitest.TextTurn("Hi."))
	if _, err := a.client.Conn.SetSessionMode(a.ctx, sdk.SetSessionModeRequest{SessionId: a.session, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	a.mustPrompt("hello", sdk.StopReasonEndTurn)
	_ = a.proc.Close()
	if _, err := a.proc.Wait(a.ctx); err != nil {
		t.Fatalf("the ACP server did not exit: %v", err)
	}

	h := &headless{t: t, model: a.model, root: a.root, env: a.env}
	shell := geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"}))
	a.model.Push(shell)
	a.model.Push(geminitest.TextTurn("Done."))
	r := h.runIn(a.root, a.env, "run", "--resume", "latest", "-p", "go on")
	r.wantExit(t, 0)
	if h.exists("marker") {
		t.Error("the resumed run ran the command unasked, in the session's yolo")
	}
	if !strings.Contains(r.stderr, "The resumed session was in YOLO mode; this run stays in manual mode") {
		t.Errorf("stderr = %q", r.stderr)
	}
	reqs := a.model.Requests()
	if fr := h.responses(len(reqs) - 1); len(fr) != 1 || responseError(fr[0]) == "" {
		t.Errorf("the command's response: %+v, want refused", fr)
	}

	a.model.Push(shell)
	a.model.Push(geminitest.TextTurn("Done."))
	h.runIn(a.root, a.env, "run", "--resume", "latest", "--approval-mode", "yolo", "-p", "go on").wantExit(t, 0)
	if !h.exists("marker") {
		t.Error("--approval-mode yolo did not let the resumed run's command run")
	}
}
