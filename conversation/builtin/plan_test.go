package builtin_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/tools"
)

// /plan switches the session, and only it, to plan mode, as Gemini CLI's
// /plan does; with a goal it sends the goal as the prompt.
func TestPlanSwitchesTheSessionToPlanMode(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	if got := h.answer(env, "/plan"); got != "Switched to Plan Mode." {
		t.Errorf("/plan answered %q", got)
	}
	if got := env.Session.ApprovalMode(); got != tools.ApprovalPlan {
		t.Fatalf("after /plan the session's mode is %q", got)
	}
	if other := env.Built.Agent.NewSession(); other.ApprovalMode() != tools.ApprovalDefault {
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
	if reply.Input == nil || reply.Input.Text != "implement authentication" || reply.Mode != tools.ApprovalPlan {
		t.Errorf("/plan with a goal: %+v", reply)
	}
	if env.Session.ApprovalMode() != tools.ApprovalPlan {
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
	if env.Session.ApprovalMode() != tools.ApprovalDefault {
		t.Errorf("the mode is %q", env.Session.ApprovalMode())
	}
}
