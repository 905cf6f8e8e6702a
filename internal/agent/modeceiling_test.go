package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// raiseCall switches the session to yolo, asking the user first when ask.
type raiseCall struct{ ask bool }

func (raiseCall) Title() string                     { return "raise" }
func (raiseCall) Confirmation() *tools.Confirmation { return nil }
func (c raiseCall) Execute(ctx context.Context, info tools.CallInfo) (tools.Result, error) {
	if c.ask {
		if _, err := info.Ask(ctx, dialog.Question{Kind: "raise", Title: "Raise?"}); err != nil {
			return tools.Result{}, err
		}
	}
	return tools.Result{Output: "raised", Mode: dialog.ApprovalYolo}, nil
}

// A call's switch of the approval mode that nobody chose never raises
// it: a tool that asks for yolo without a question of its own leaves
// the session in its mode, and the model is told; one whose question
// the user answered switches it.
func TestCallCannotRaiseTheModeUnasked(t *testing.T) {
	for _, ask := range []bool{false, true} {
		srv := geminitest.NewTestServer(t,
			geminitest.CallTurn(geminitest.Call("raise", nil)),
			geminitest.TextTurn("ok"),
		)
		raise := fakeTool{name: "raise", build: func(map[string]any) (tools.Call, error) { return raiseCall{ask: ask}, nil }}
		ui := front{asker: &planAsker{}}
		a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(raise), ApprovalMode: dialog.ApprovalDefault})
		s := a.NewSession()
		if res, _ := ui.prompt(t, s, "raise"); res.Err != nil {
			t.Fatal(res.Err)
		}
		want := dialog.ApprovalDefault
		if ask {
			want = dialog.ApprovalYolo
		}
		if got := s.ApprovalMode(); got != want {
			t.Errorf("asked %v: the mode is %s, want %s", ask, got, want)
		}
		out, _ := responses(t, srv.Requests()[1])[0].Response["output"].(string)
		if told := strings.Contains(out, "Nobody chose yolo, so the approval mode is default"); told == ask {
			t.Errorf("asked %v: the model read %q", ask, out)
		}
	}
}

// unattendedFront is a headless run's front end: nobody can be asked,
// and an edit that would ask is refused.
type unattendedFront struct{}

func (unattendedFront) Confirm(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	return dialog.Cancel, fmt.Errorf("%w: headless", dialog.ErrCannotAsk)
}

func (unattendedFront) Ask(context.Context, dialog.AskRequest) (dialog.Answer, error) {
	return dialog.Answer{}, fmt.Errorf("%w: headless", dialog.ErrCannotAsk)
}

func (unattendedFront) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if req.Ask {
		return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Refused, Reason: "headless"}}, nil
	}
	dec, err := tools.LandOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: dec}, err
}

// A subagent has no mode of its own, and its calls switch its main
// session's under the same rule (issue 55): in a headless run in the
// default mode, a subagent that enters plan mode, writes a plan and
// exits plan mode is approved back into default, not yolo, and told
// so; its own switch to yolo unasked is refused; so its shell command
// and its write outside the plans directory, which default mode would
// ask about, are refused, and the main session is still in default.
func TestSubagentPlanUnattendedNeverRaisesTheMode(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plan, marker, outside := filepath.Join(plans, "p.md"), filepath.Join(root, "marker"), filepath.Join(root, "out.txt")
	raise := fakeTool{name: "raise", build: func(map[string]any) (tools.Call, error) { return raiseCall{}, nil }}
	reg := tools.NewRegistry(append(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true, Unattended: true}}), raise)...)
	def := subagents.Definition{Name: "planner", Kind: subagents.Local, SystemPrompt: "You plan.",
		Tools: []string{tools.EnterPlanModeName, tools.ExitPlanModeName, tools.WriteFileName, tools.ShellName, "raise"}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", def.Name, "plan and build")),
		geminitest.CallTurn(call("p1", tools.EnterPlanModeName, map[string]any{"reason": "plan first"})),
		geminitest.CallTurn(call("w1", tools.WriteFileName, map[string]any{"file_path": plan, "content": "# Plan\n\n1. Touch the marker.\n"})),
		geminitest.CallTurn(call("x1", tools.ExitPlanModeName, map[string]any{"plan_filename": "p.md"})),
		geminitest.CallTurn(call("r1", "raise", nil)),
		geminitest.CallTurn(call("s1", tools.ShellName, map[string]any{"command": "touch " + marker})),
		geminitest.CallTurn(call("w2", tools.WriteFileName, map[string]any{"file_path": outside, "content": "x\n"})),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "planned"})),
		geminitest.TextTurn("done"),
	)
	user := unattendedFront{}
	ui := front{confirmer: user, asker: user, lander: user}
	a, _ := newAgent(t, srv, agent.Config{
		Tools: reg, Workspace: ws, Agents: catalog{def}, ApprovalMode: dialog.ApprovalDefault, Policy: policy.Load(nil, false),
		PlansDir: func(string) (string, error) { return plans, nil },
		// Declared headless, so that it runs: a tool nobody could
		// approve is not offered, and a call of it runs nothing.
		TrustedTools: []string{"raise"}})
	s := a.NewSession()
	res, evs := ui.prompt(t, s, "go")
	if res.Err != nil || res.Text != "done" {
		t.Fatalf("result %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i := 1; i < 8; i++ {
		if !strings.HasPrefix(systemText(reqs[i]), "You plan.") {
			t.Fatalf("request %d is not the subagent's", i)
		}
	}

	if got := s.ApprovalMode(); got != dialog.ApprovalDefault {
		t.Errorf("after the subagent the session's mode is %s, want default", got)
	}
	var modes []dialog.ApprovalMode
	for _, ev := range only[dialog.ModeEvent](evs) {
		modes = append(modes, ev.Mode)
	}
	if len(modes) == 0 || modes[0] != dialog.ApprovalPlan || slices.Contains(modes, dialog.ApprovalYolo) {
		t.Errorf("mode events %v: want plan first, never yolo", modes)
	}
	if data, _ := os.ReadFile(plan); string(data) != "# Plan\n\n1. Touch the marker.\n" {
		t.Errorf("the plan file holds %q: the subagent was not in plan mode", data)
	}
	for _, path := range []string{marker, outside} {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v): the subagent ran unasked", path, err)
		}
	}

	answer := func(i int, name string) map[string]any {
		fr := responses(t, reqs[i])
		if len(fr) != 1 || fr[0].Name != name {
			t.Fatalf("request %d answers %s", i, toJSON(fr))
		}
		return fr[0].Response
	}
	if out, _ := answer(4, tools.ExitPlanModeName)["output"].(string); !strings.HasPrefix(out, "Plan approved. Nobody can be asked in this run, so it returns to the mode it had before Plan Mode, not a more permissive one: Default mode (edits will require confirmation).") || strings.Contains(out, "YOLO") {
		t.Errorf("exit_plan_mode told the subagent %q", out)
	}
	if out, _ := answer(5, "raise")["output"].(string); !strings.Contains(out, "Nobody chose yolo, so the approval mode is default") {
		t.Errorf("the subagent's raise was answered %q", out)
	}
	for i, name := range map[int]string{6: tools.ShellName, 7: tools.WriteFileName} {
		if r := answer(i, name); r["error"] == nil {
			t.Errorf("%s was not refused: %s", name, toJSON(r))
		}
	}
}
