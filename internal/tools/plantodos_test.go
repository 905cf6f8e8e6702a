package tools

import (
	"reflect"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

func TestChecklistTodos(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []dialog.Todo
	}{
		{"Plan:\n- [ ] Read\n* [x] Write\n+ [X] Test\n", []dialog.Todo{{Description: "Read", Status: "pending"}, {Description: "Write", Status: "completed"}, {Description: "Test", Status: "completed"}}},
		{"  - [ ] indented\n  - [ ] too\n", []dialog.Todo{{Description: "indented", Status: "pending"}, {Description: "too", Status: "pending"}}},
		{"- [ ] only one box\n", nil},
		{"```\n- [ ] in code\n- [ ] in code\n```\n", nil},
		{"- [?] odd\n- [] empty\n- [ ]\n-  [ ] spaced\n", nil},
		{"1. a numbered list\n2. is no checklist\n", nil},
	} {
		if got := ChecklistTodos(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ChecklistTodos(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestPlanTodos(t *testing.T) {
	for _, tc := range []struct {
		plan string
		want []dialog.Todo
	}{
		{"# Cache\n\n1. Cache greet's answer.\n2) Test it.\n   3. nested, not a step\n", []dialog.Todo{{Description: "Cache greet's answer.", Status: "pending"}, {Description: "Test it.", Status: "pending"}}},
		{"# Cache\n\n1. Numbered\n\n- [x] Checked\n- [ ] Open\n", []dialog.Todo{{Description: "Checked", Status: "completed"}, {Description: "Open", Status: "pending"}}},
		{"# Cache\n\nJust prose, 2024. No steps.\n", nil},
		{"```\n1. code\n```\n", nil},
	} {
		if got := PlanTodos(tc.plan); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PlanTodos(%q) = %v, want %v", tc.plan, got, tc.want)
		}
	}
}

// exit_plan_mode gives the plan's steps as the session's plan, as
// write_todos gives its list, read before it is presented.
func TestExitPlanModePresentsThePlansSteps(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".gemini/plans/p.md": "# Plan\n\n1. Add the flag.\n2. Test it.\n", ".gemini/plans/prose.md": "# Plan\n\nNo steps.\n"})
	tool := tw.tool(ExitPlanModeName, Options{Plan: PlanOptions{Enabled: true}})
	for file, want := range map[string][]dialog.Todo{
		"p.md":     {{Description: "Add the flag.", Status: "pending"}, {Description: "Test it.", Status: "pending"}},
		"prose.md": nil,
	} {
		call, err := tool.(SessionTool).BuildIn(SessionScope{PlansDir: tw.abs(".gemini/plans")}, map[string]any{"plan_filename": file})
		if err != nil {
			t.Fatal(err)
		}
		Prepare(t.Context(), call)
		var d dialog.ToolCall
		Present(tool, call, &d)
		if !d.PresentsPlan || !reflect.DeepEqual(d.Todos, want) {
			t.Errorf("%s: presents plan %v, todos %v; want %v", file, d.PresentsPlan, d.Todos, want)
		}
	}
}
