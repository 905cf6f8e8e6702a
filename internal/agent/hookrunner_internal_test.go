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
		ctx:   context.Background(),
		hooks: toolEventHooks{},
		fireQuiet: func(_ context.Context, name, target string, _ map[string]any) HookOutcome {
			fired = append(fired, name+":"+target)
			return outcomes[name]
		},
		tell:      func(text string) { told = append(told, text) },
		stopLater: func(reason string) { stopped = reason },
	}
	tool := namedTool("read_thing")

	outcomes[HookAfterTool] = HookOutcome{AdditionalContext: "more", Messages: []string{"hello"}}
	res, _ := h.afterTool(tool, nil, "", tools.Result{Output: "out"})
	if res.Output != "out\n\n<hook_context>more</hook_context>" {
		t.Errorf("output %q, want the hook's context after it", res.Output)
	}
	if len(told) != 1 || told[0] != "hello" {
		t.Errorf("told %v, want the hook's message", told)
	}

	outcomes[HookBeforeTool] = HookOutcome{Stop: true, StopReason: "enough"}
	_, res, ok := h.beforeTool("read_thing", "", tool, nil, nil)
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

// toolEventHooks handle the tool events and fire nothing themselves
// (the hookRunner's fireQuiet does).
type toolEventHooks struct{}

func (toolEventHooks) Handles(name string) bool {
	return name == HookBeforeTool || name == HookAfterTool
}
func (toolEventHooks) Fire(context.Context, HookEvent) HookOutcome { return HookOutcome{} }

// A call whose events no hook handles makes no hook input and fires
// nothing; the turn makes its hookRunner once, not at each call.
func TestUnhandledToolEventsFireNothing(t *testing.T) {
	fired := 0
	h := &hookRunner{
		ctx:       context.Background(),
		hooks:     notificationHooks{},
		fireQuiet: func(context.Context, string, string, map[string]any) HookOutcome { fired++; return HookOutcome{} },
	}
	tool := namedTool("read_thing")
	if _, _, ok := h.beforeTool("read_thing", "", tool, nil, nil); !ok {
		t.Error("the call did not pass BeforeTool, which no hook handles")
	}
	if res, _ := h.afterTool(tool, nil, "", tools.Result{Output: "out"}); res.Output != "out" {
		t.Errorf("AfterTool, which no hook handles, made the output %q", res.Output)
	}
	if fired != 0 {
		t.Errorf("fired %d events no hook handles", fired)
	}

	turn := &turn{s: &Session{agent: &Agent{}}, ctx: context.Background()}
	if first := turn.hooks(); turn.hooks() != first {
		t.Error("the turn made its hookRunner again")
	}
}

// notificationHooks handle Notification only.
type notificationHooks struct{}

func (notificationHooks) Handles(name string) bool                    { return name == HookNotification }
func (notificationHooks) Fire(context.Context, HookEvent) HookOutcome { return HookOutcome{} }
