package agent

import (
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// answeringAsker answers every JSON request with answer (or err).
type answeringAsker struct {
	answer string
	err    error
	asked  int
}

func (a *answeringAsker) utilityJSON(string, models.Utility, string, map[string]any, []*genai.Content, int) (string, error) {
	a.asked++
	return a.answer, a.err
}

// The router needs no turn: its settings are passed in and it asks the
// classifier through jsonAsker. Plan mode and an approved plan choose
// without asking; the classifier's score chooses otherwise; a failure
// leaves the auto's default.
func TestRouterOnItsOwn(t *testing.T) {
	input := genai.NewContentFromText("refactor the world", genai.RoleUser)
	for _, tc := range []struct {
		name      string
		r         router
		ask       *answeringAsker
		want      string
		wantAsked int
	}{
		{"plan mode plans on Pro", router{mode: dialog.ApprovalPlan, planRouting: true}, &answeringAsker{}, models.ResolveRouted(models.AutoGemini3, models.ChoicePro), 0},
		{"an approved plan runs on Flash", router{approvedPlan: "p.md", planRouting: true}, &answeringAsker{}, models.ResolveRouted(models.AutoGemini3, models.ChoiceFlash), 0},
		{"without plan routing the classifier decides", router{mode: dialog.ApprovalPlan}, &answeringAsker{answer: `{"complexity_reasoning": "easy", "complexity_score": 10}`}, models.ResolveRouted(models.AutoGemini3, models.ChoiceFlash), 1},
		{"a high score goes to Pro", router{}, &answeringAsker{answer: `{"complexity_reasoning": "hard", "complexity_score": 95}`}, models.ResolveRouted(models.AutoGemini3, models.ChoicePro), 1},
		{"a failure leaves the default", router{}, &answeringAsker{err: errors.New("down")}, models.Resolve(models.AutoGemini3), 1},
	} {
		tc.r.configured, tc.r.ask = models.AutoGemini3, tc.ask
		if got := tc.r.route(nil, input); got != tc.want || tc.ask.asked != tc.wantAsked {
			t.Errorf("%s: routed to %q asking %d times, want %q asking %d", tc.name, got, tc.ask.asked, tc.want, tc.wantAsked)
		}
	}
}
