package agent_test

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Where the model is not told of write_todos (0.61 declares it only to
// Gemini 2 models), the plan it writes as a checklist in its answer is
// shown as the session's plan, as write_todos' list would be; the tools
// it is told of stay the same. Where it is told of write_todos, its
// text is only text.
func TestChecklistIsThePlanWhereWriteTodosIsNotDeclared(t *testing.T) {
	answer := "Here is the plan:\n\n- [x] Read the handler\n- [ ] Add the cache\n- [ ] Test it\n\n```md\n- [ ] not a step\n```\n"
	want := []dialog.Todo{{Description: "Read the handler", Status: "completed"}, {Description: "Add the cache", Status: "pending"}, {Description: "Test it", Status: "pending"}}
	for _, tc := range []struct {
		model    string
		declared bool
	}{
		{models.Gemini3FlashPreview, false},
		{models.Gemini25Flash, true},
	} {
		t.Run(tc.model, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, geminitest.TextTurn(answer))
			reg := tools.NewRegistry(fakeTool{name: tools.ReadFileName}, fakeTool{name: tools.WriteTodosName})
			a, _ := newAgent(t, srv, agent.Config{Tools: reg, Model: tc.model})
			_, evs := front{}.prompt(t, a.NewSession(), "plan the cache")
			var plans [][]dialog.Todo
			for _, ev := range evs {
				if p, ok := ev.(dialog.PlanEvent); ok {
					plans = append(plans, p.Todos)
				}
			}
			var declared []string
			for _, tool := range srv.Requests()[0].Tools {
				for _, d := range tool.FunctionDeclarations {
					declared = append(declared, d.Name)
				}
			}
			if got := slices.Contains(declared, tools.WriteTodosName); got != tc.declared {
				t.Fatalf("declared %q: write_todos declared = %v, want %v (the tool set is 0.61's)", declared, got, tc.declared)
			}
			switch {
			case tc.declared && len(plans) != 0:
				t.Errorf("write_todos declared, yet the text's checklist was shown as the plan: %v", plans)
			case !tc.declared && (len(plans) != 1 || !slices.Equal(plans[0], want)):
				t.Errorf("plans shown %v, want one: %v", plans, want)
			}
		})
	}
}
