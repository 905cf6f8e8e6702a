package agent_test

import (
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// An auto's prompts in plan mode go to Pro without a classifier request,
// and once a plan is approved, to Flash, as Gemini CLI 0.61's
// ApprovalModeStrategy routes them; with general.plan.modelRouting off
// (NoPlanRouting) the classifier decides as for any prompt.
func TestPlanModeRoutesAnAuto(t *testing.T) {
	classifierLow := geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`)
	for _, tc := range []struct {
		name  string
		off   bool
		turns []geminitest.Turn
		want  []string
	}{
		{"on", false, nil, []string{
			"gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview-customtools", // planning, and its continuations
			"gemini-3.8-flash", // the approved plan carried out
		}},
		{"off", true, []geminitest.Turn{classifierLow}, []string{
			"gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3.8-flash", "gemini-3.8-flash",
			"gemini-3.5-flash-lite", "gemini-3.8-flash",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws, err := workspace.New([]string{root}, nil)
			if err != nil {
				t.Fatal(err)
			}
			plans := filepath.Join(root, "plans")
			turns := append([]geminitest.Turn(nil), tc.turns...)
			turns = append(turns,
				geminitest.CallTurn(geminitest.Call(tools.WriteFileName, map[string]any{"file_path": filepath.Join(plans, "p.md"), "content": "# Plan\n"})),
				geminitest.CallTurn(geminitest.Call(tools.ExitPlanModeName, map[string]any{"plan_filename": "p.md"})),
				geminitest.TextTurn("Planned."))
			turns = append(turns, tc.turns...)
			turns = append(turns, geminitest.TextTurn("Done."))
			srv := geminitest.NewTestServer(t, turns...)
			ui := front{lander: &diskLander{}, confirmer: always(dialog.ProceedOnce), asker: &planAsker{choose: tools.PlanApproveAutoEdit}}
			a, _ := newAgent(t, srv, agent.Config{
				Model:     "auto",
				Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Plan: tools.PlanOptions{Enabled: true}})...),
				Workspace: ws, PlansDir: func(string) (string, error) { return plans, nil },
				NoPlanRouting: tc.off})
			s := a.NewSession()
			s.SetApprovalMode(dialog.ApprovalPlan)
			if res, _ := ui.prompt(t, s, "plan a flag"); res.Err != nil {
				t.Fatal(res.Err)
			}
			if s.ApprovedPlan() == "" {
				t.Fatal("the plan was not approved")
			}
			if res, _ := ui.prompt(t, s, "carry it out"); res.Err != nil {
				t.Fatal(res.Err)
			}
			var got []string
			for _, r := range srv.Requests() {
				got = append(got, r.Model)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("requests went to\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// The classifier's request carries what 0.61 sends on its "classifier"
// model config for an API key: flash-lite resolves to gemini-3.5-flash-lite,
// and 0.61's applyModelSelection then gives it that model's chat config
// (temperature 1, topP 0.95, topK 64, thoughts at thinking level HIGH), not
// the alias's own maxOutputTokens 1024 and thinking budget 512
// (bench/compare-0.61/models.sh records 0.61 sending it so).
func TestClassifierRequestConfig(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`),
		geminitest.TextTurn("Done."))
	a, _ := newAgent(t, srv, agent.Config{Model: "auto"})
	if res, _ := prompt(t, a.NewSession(), "hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	req := srv.Requests()[0]
	gc := req.GenerationConfig
	if req.Model != "gemini-3.5-flash-lite" || gc == nil {
		t.Fatalf("classifier request on %q with %+v", req.Model, gc)
	}
	tc := gc.ThinkingConfig
	if gc.Temperature == nil || *gc.Temperature != 1 || gc.TopP == nil || *gc.TopP != 0.95 || gc.TopK == nil || *gc.TopK != 64 ||
		gc.MaxOutputTokens != 0 || tc == nil || !tc.IncludeThoughts || tc.ThinkingLevel != genai.ThinkingLevelHigh || tc.ThinkingBudget != nil {
		t.Errorf("classifier generationConfig = %+v, thinking %+v", gc, tc)
	}
	if gc.ResponseMIMEType != "application/json" || gc.ResponseJsonSchema == nil {
		t.Errorf("the classifier's JSON schema was not sent: %+v", gc)
	}
}

// The classifier's retries are told as the chat request's are, naming the
// routing request (0.61 reports each through its onRetry): a rate-limited
// classifier is not a silent wait before the prompt.
func TestClassifierRetriesAreTold(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`),
		geminitest.TextTurn("Done."))
	a, sl := newAgent(t, srv, agent.Config{Model: "auto"})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.Err != nil || res.Model != "gemini-3.8-flash" {
		t.Fatalf("result = %+v, want the prompt routed to gemini-3.8-flash", res)
	}
	waits := sl.got()
	if len(waits) != 1 {
		t.Fatalf("waits = %v, want the classifier's one", waits)
	}
	want := []dialog.RetryInfo{{Attempt: 1, Delay: waits[0], Reason: "the routing request (gemini-3.5-flash-lite): the model is overloaded (503 UNAVAILABLE)"}}
	if got := evs.retries(); !slices.Equal(got, want) {
		t.Errorf("retry events = %+v\nwant %+v", got, want)
	}
}
