package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// /plan switches the session, and only it, to plan mode, as Gemini CLI's
// /plan does; with a goal it sends the goal as the prompt.
func TestPlanSwitchesTheSessionToPlanMode(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	if got := h.answer(env, "/plan"); got != "Switched to Plan Mode." {
		t.Errorf("/plan answered %q", got)
	}
	if got := env.Session.ApprovalMode(); got != dialog.ApprovalPlan {
		t.Fatalf("after /plan the session's mode is %q", got)
	}
	if other := env.Built.Agent.NewSession(); other.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("/plan switched another session too: %q", other.ApprovalMode())
	}
	if got := h.answer(env, "/plan"); got != "Already in Plan Mode." {
		t.Errorf("/plan again answered %q", got)
	}

	env = h.conversation()
	reply, err := h.run(env, "/plan implement authentication")
	if err != nil {
		t.Fatal(err)
	}
	if reply.Input == nil || reply.Input.Text != "implement authentication" || reply.Mode != dialog.ApprovalPlan {
		t.Errorf("/plan with a goal: %+v", reply)
	}
	if env.Session.ApprovalMode() != dialog.ApprovalPlan {
		t.Errorf("/plan with a goal left the mode %q", env.Session.ApprovalMode())
	}
}

// With general.plan.enabled false there is no plan mode to switch to.
func TestPlanIsRefusedWhenPlanModeIsOff(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/settings.json", `{"general": {"plan": {"enabled": false}}}`)
	env := h.conversation()
	if err := h.fails(env, "/plan"); !strings.Contains(err.Error(), "general.plan.enabled") {
		t.Errorf("/plan with plan mode off: %v", err)
	}
	if env.Session.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("the mode is %q", env.Session.ApprovalMode())
	}
}

// /plan without a goal shows the plan the user approved in the session,
// as Gemini CLI's does: its file name, then its text.
func TestPlanShowsTheApprovedPlan(t *testing.T) {
	h := newHarness(t,
		geminitest.CallTurn(geminitest.Call(tools.EnterPlanModeName, nil)), geminitest.TextTurn("Planning."),
		geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "flag.md"})), geminitest.TextTurn("Approved."),
	)
	h.unattended = true
	env := h.conversation()
	h.prompt(env, "plan a flag")
	// The session's plans directory, where Gemini CLI keeps it.
	dirs, err := filepath.Glob(filepath.Join(h.home, ".gemini", "tmp", "*", env.Session.ID(), "plans"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("the session's plans directory: %v, %v", dirs, err)
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "flag.md"), []byte("# Plan\n\n1. Add the flag.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.prompt(env, "done planning")
	// Approved unattended: back to the mode before plan mode, never yolo.
	if env.Session.ApprovalMode() != dialog.ApprovalDefault {
		t.Fatalf("the plan was not approved into the mode before plan mode: the mode is %q", env.Session.ApprovalMode())
	}
	if got := h.answer(env, "/plan"); got != "Switched to Plan Mode.\n\nApproved Plan: flag.md\n\n# Plan\n\n1. Add the flag.\n" {
		t.Errorf("/plan answered %q", got)
	}
	if env.Session.ApprovalMode() != dialog.ApprovalPlan {
		t.Errorf("after /plan the mode is %q", env.Session.ApprovalMode())
	}
}

// /plan between prompts is saved at once: a new process resuming the
// session before another prompt finds it planning.
func TestPlanIsSavedWithTheSession(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Hi."))
	env := h.conversation()
	h.prompt(env, "hello")
	if got := h.answer(env, "/plan"); got != "Switched to Plan Mode." {
		t.Fatalf("/plan answered %q", got)
	}
	next := h.conversation()
	resumed, err := next.Built.Agent.Session(context.Background(), env.Session.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.ApprovalMode(); got != dialog.ApprovalPlan {
		t.Errorf("the session resumed in a new process in %q, want plan", got)
	}
}

// /plan copy answers the approved plan in one code block to copy from the
// chat, with 0.61's words around it, and leaves the mode as it is; with
// no plan approved it says so, as 0.61's; "/plan copy the tests" is a
// goal, as 0.61 parses it.
func TestPlanCopy(t *testing.T) {
	h := newHarness(t,
		geminitest.CallTurn(geminitest.Call(tools.EnterPlanModeName, nil)), geminitest.TextTurn("Planning."),
		geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "flag.md"})), geminitest.TextTurn("Approved."),
	)
	h.unattended = true
	env := h.conversation()
	if got := h.answer(env, "/plan copy"); got != "No approved plan found to copy." {
		t.Errorf("/plan copy before a plan: %q", got)
	}
	h.prompt(env, "plan a flag")
	dirs, err := filepath.Glob(filepath.Join(h.home, ".gemini", "tmp", "*", env.Session.ID(), "plans"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("the session's plans directory: %v, %v", dirs, err)
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "flag.md"), []byte("# Plan\n\n```go\nflag.Bool()\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.prompt(env, "done planning")
	want := "Plan ready to copy (flag.md): gemini-ls cannot reach your clipboard from the editor's language server, so copy it from this block.\n\n" +
		"````markdown\n# Plan\n\n```go\nflag.Bool()\n```\n````"
	if got := h.answer(env, "/plan copy"); got != want {
		t.Errorf("/plan copy answered %q, want %q", got, want)
	}
	if env.Session.ApprovalMode() != dialog.ApprovalDefault {
		t.Errorf("/plan copy switched the mode to %q", env.Session.ApprovalMode())
	}
	reply, err := h.run(env, "/plan copy the tests")
	if err != nil || reply.Input == nil || reply.Input.Text != "copy the tests" {
		t.Errorf("/plan copy the tests: %+v, %v", reply, err)
	}
}
