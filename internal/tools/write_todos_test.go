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
