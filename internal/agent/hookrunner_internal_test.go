package agent

import (
	"context"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The hookRunner needs no turn: it is handed how to fire the session's
// hooks, tell the user and stop the loop. A stop is passed on to
// stopLater, what the hooks say is told, and their context reaches the
// model's result.
func TestHookRunnerOnItsOwn(t *testing.T) {
	var fired []string
	var told []string
	var stopped string
	outcomes := map[string]HookOutcome{}
	h := &hookRunner{
		ctx: context.Background(),
		fireQuiet: func(_ context.Context, name, target string, _ map[string]any) HookOutcome {
			fired = append(fired, name+":"+target)
			return outcomes[name]
		},
		tell:      func(text string) { told = append(told, text) },
		stopLater: func(reason string) { stopped = reason },
	}
	tool := namedTool("read_thing")

	outcomes[HookAfterTool] = HookOutcome{AdditionalContext: "more", Messages: []string{"hello"}}
	res := h.afterTool(tool, nil, tools.Result{Output: "out"})
	if res.Output != "out\n\n<hook_context>more</hook_context>" {
		t.Errorf("output %q, want the hook's context after it", res.Output)
	}
	if len(told) != 1 || told[0] != "hello" {
		t.Errorf("told %v, want the hook's message", told)
	}

	outcomes[HookBeforeTool] = HookOutcome{Stop: true, StopReason: "enough"}
	_, res, ok := h.beforeTool("read_thing", tool, nil, nil)
	if ok || stopped != "enough" || res.Error != hookStoppedPrefix+"enough" {
		t.Errorf("a stop: ok %v, stopped %q, error %q; want the loop stopped and the call answered", ok, stopped, res.Error)
	}
	if len(fired) != 2 || fired[0] != HookAfterTool+":read_thing" || fired[1] != HookBeforeTool+":read_thing" {
		t.Errorf("fired %v", fired)
	}
	if h.handles(HookNotification) {
		t.Error("handles an event with no hooks configured")
	}
}
