package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

func TestWriteTodos(t *testing.T) {
	todo := func(desc, status string) map[string]any { return map[string]any{"description": desc, "status": status} }
	call, err := writeTodos().Build(map[string]any{"todos": []any{todo("Read the code", "completed"), todo("Fix the bug", "in_progress"), todo("Run the tests", "pending")}})
	if err != nil {
		t.Fatal(err)
	}
	if call.Title() != "Set 3 todo(s)" || kindOf(writeTodos()) != dialog.KindThink || call.Confirmation() != nil {
		t.Errorf("title %q kind %q", call.Title(), kindOf(writeTodos()))
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Successfully updated the todo list. The current list is now:\n1. [completed] Read the code\n2. [in_progress] Fix the bug\n3. [pending] Run the tests"
	if res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	if !strings.Contains(res.Display, "- [x] Read the code") {
		t.Errorf("display %q", res.Display)
	}
	empty, _ := writeTodos().Build(map[string]any{"todos": []any{}})
	if res, _ := empty.Execute(context.Background(), CallInfo{}); res.Output != "Successfully cleared the todo list." || empty.Title() != "Cleared todo list" {
		t.Errorf("empty list: %q %q", res.Output, empty.Title())
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "`todos` parameter must be an array"},
		{map[string]any{"todos": []any{"x"}}, "Each todo item must be an object"},
		{map[string]any{"todos": []any{todo(" ", "pending")}}, "non-empty description"},
		{map[string]any{"todos": []any{todo("a", "done")}}, "valid status (pending, in_progress, completed, cancelled, blocked)"},
		{map[string]any{"todos": []any{todo("a", "in_progress"), todo("b", "in_progress")}}, `Only one task can be "in_progress"`},
	} {
		if _, err := writeTodos().Build(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// A write_todos call presents its list, for the front ends to show as the
// plan without knowing the tool: a cleared list as an empty one, and any
// other call no list at all.
func TestWriteTodosPresentsItsList(t *testing.T) {
	todo := map[string]any{"description": "Fix the bug", "status": "in_progress"}
	call, err := writeTodos().Build(map[string]any{"todos": []any{todo}})
	if err != nil {
		t.Fatal(err)
	}
	var d dialog.ToolCall
	Present(writeTodos(), call, &d)
	if len(d.Todos) != 1 || d.Todos[0] != (dialog.Todo{Description: "Fix the bug", Status: "in_progress"}) || d.Title != "Set 1 todo(s)" || d.Kind != dialog.KindThink {
		t.Errorf("presented as %+v", d)
	}
	empty, _ := writeTodos().Build(map[string]any{"todos": []any{}})
	var cleared dialog.ToolCall
	Present(writeTodos(), empty, &cleared)
	if cleared.Todos == nil || len(cleared.Todos) != 0 {
		t.Errorf("a cleared list is presented as %#v, want an empty list", cleared.Todos)
	}
	other, _ := NewInvokeAgent(agentSet{"a": true}).Build(map[string]any{"agent_name": "a", "prompt": "p"})
	var delegated dialog.ToolCall
	Present(NewInvokeAgent(agentSet{"a": true}), other, &delegated)
	if delegated.Todos != nil || delegated.PresentsPlan || delegated.Kind != dialog.KindAgent {
		t.Errorf("invoke_agent is presented as %+v, want a subagent's call with no list and no plan", delegated)
	}
}
