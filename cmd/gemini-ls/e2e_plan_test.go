package main

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

// Gemini CLI's plan-mode refusals, which the model reads.
const (
	planEditRefusal = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."
	planModeRefusal = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."
)

// `run --approval-mode plan` refuses every edit and shell command in
// Gemini CLI's words, while the plan file in the plans directory
// (.gemini/plans) is written and files are read.
func TestRunPlanModeRefusesWrites(t *testing.T) {
	h := newHeadless(t, editAndShellFiles, editAndShellTurns()[0],
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
			geminitest.Call("write_file", map[string]any{"file_path": ".gemini/plans/change-things.md", "content": "# Plan\n\n1. Change a.txt.\n"}),
		),
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
	for i, want := range []string{planEditRefusal, planEditRefusal, planEditRefusal, planModeRefusal} {
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
	if got := h.disk(".gemini/plans/change-things.md"); got != "# Plan\n\n1. Change a.txt.\n" {
		t.Errorf("the plan file = %q", got)
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
