package agent_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A tool the session holds but did not declare to the model is not there
// for it, as in Gemini CLI 0.61 (its registry's getTool finds only active
// tools): called all the same, it does not run, nobody is asked about
// it, and the model is answered in 0.61's words, suggesting the tools it
// was told of; the front end hears the call failed as 0.61's
// tool_not_registered, and why. In an editor's plan mode (0.61's
// plan.toml hides the shell; enter_plan_mode is not offered there) and
// headless in the default mode (nobody could approve the shell) alike.
func TestUndeclaredToolsAreNotFound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   agent.Config
		conf  *confirmer // the user's, nil for nobody
		enter string     // what a call of enter_plan_mode is answered
		shell string     // and one of the shell
		told  string     // and the user
	}{
		{name: "editor in plan mode", cfg: agent.Config{Policy: policy.Load(nil, true), ApprovalMode: dialog.ApprovalPlan}, conf: always(dialog.ProceedAlways),
			enter: `Tool "enter_plan_mode" not found. Did you mean "read_file"?`, shell: `Tool "run_shell_command" not found. Did you mean "read_file"?`,
			told: "run_shell_command is not offered to the model in the plan approval mode (the default approval mode offers it), so the model's call of it did not run; the model was told: Tool \"run_shell_command\" not found."},
		{name: "headless", cfg: agent.Config{Policy: policy.Load(nil, false)},
			enter: "entered", shell: `Tool "run_shell_command" not found. Did you mean one of: "read_file", "enter_plan_mode"?`,
			told: "run_shell_command is not offered to the model in the default approval mode (the yolo approval mode offers it; settings' tools.allowed can allow it), so the model's call of it did not run; the model was told: Tool \"run_shell_command\" not found."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shell := &shellTool{}
			entered := false
			enter := fakeTool{name: tools.EnterPlanModeName, build: func(map[string]any) (tools.Call, error) {
				return fakeCall{title: "Enter Plan Mode", kind: dialog.KindOther, exec: func(context.Context) (tools.Result, error) {
					entered = true
					return tools.Result{Output: "entered"}, nil
				}}, nil
			}}
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(
					call("c1", tools.ShellName, map[string]any{"command": "touch marker"}),
					call("c2", tools.ReadFileName, map[string]any{"path": "a.go"}),
					call("c3", tools.EnterPlanModeName, map[string]any{}),
				),
				geminitest.TextTurn("done"),
			)
			cfg := tc.cfg
			cfg.Tools = tools.NewRegistry(readTool(), shell.tool(), enter)
			conf := tc.conf
			var ui front
			if conf != nil {
				ui.confirmer = conf
			}
			a, _ := newAgent(t, srv, cfg)
			res, evs := ui.prompt(t, a.NewSession(), "go")
			if res.StopReason != dialog.StopEndTurn {
				t.Fatalf("result = %+v", res)
			}
			if got := shell.commands(); len(got) != 0 || entered != (tc.enter == "entered") {
				t.Errorf("the shell ran %q; enter_plan_mode ran: %v", got, entered)
			}
			if conf != nil && len(conf.asked()) != 0 {
				t.Errorf("the user was asked about %+v", conf.asked())
			}
			fr := responses(t, srv.Requests()[1])
			if len(fr) != 3 || fr[0].Response["error"] != tc.shell || fr[1].Response["output"] != "contents of a.go" ||
				fr[2].Response["error"] != tc.enter && fr[2].Response["output"] != tc.enter {
				t.Errorf("responses = %s", toJSON(fr))
			}
			var shellResult dialog.ToolResult
			for _, r := range only[dialog.ToolResultEvent](evs) {
				if r.Result.CallID == "c1" {
					shellResult = r.Result
				}
			}
			if shellResult.Status != dialog.StatusError || shellResult.ErrorType != "tool_not_registered" || shellResult.Display != tc.shell {
				t.Errorf("the shell's result = %+v", shellResult)
			}
			if notices := only[dialog.NoticeEvent](evs); !slices.ContainsFunc(notices, func(n dialog.NoticeEvent) bool { return n.Text == tc.told }) {
				t.Errorf("notices = %s, want %q", toJSON(notices), tc.told)
			}
		})
	}
}
