package lsp

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A gemini.prompt turn's questions are put by the presenter, as every
// turn's are; the transcript then records each answer once, after the
// line of the call that asked (or after the question, quoted, for one no
// call asked), in the words of the choice the user made: an editor
// without a plugin shows the question in a popup that leaves nothing
// behind. A question nobody could answer records nothing: the call's
// result says why it did not run.

func (v commandView) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	o, err := v.presenter.Confirm(ctx, req)
	if err == nil {
		v.tr.answered(req.CallID, req.Title, confirmAnswer(o, req))
	}
	return o, err
}

func (v commandView) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	l, err := v.presenter.Land(ctx, req)
	if err == nil && req.Ask {
		if a := landAnswer(l); a != "" {
			v.tr.answered(req.CallID, "Apply the edit?", a)
		}
	}
	return l, err
}

func (v commandView) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	ds, err := v.presenter.LandFiles(ctx, req)
	switch {
	case err != nil:
	case req.CallID == "":
		if a := filesAnswer(ds, actionRevert); a != "" {
			v.tr.answered("", req.Title+"?", a)
		}
	case req.Ask:
		// An edit call's answer goes after its line, as Land's does.
		if a := filesAnswer(ds, actionApply); a != "" {
			v.tr.answered(req.CallID, req.Title+"?", a)
		}
	}
	return ds, err
}

func (v commandView) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	if path := v.plans.of(req.CallID); path != "" && req.Question.Kind == dialog.QuestionPlanApproval && !v.s.features.get().Ask {
		// The plan is open in the editor: a popup that repeats it would
		// cover it.
		req.Question.Text = fmt.Sprintf("Approve the plan in %s, open in the editor?", filepath.Base(path))
	}
	a, err := v.presenter.Ask(ctx, req)
	if err == nil {
		v.tr.answered(req.CallID, cmp.Or(req.Question.Title, req.Question.Text), askAnswer(req.Question, a))
	}
	return a, err
}

func (v commandView) AskTrust(ctx context.Context, req dialog.TrustRequest) (string, error) {
	level, err := v.presenter.AskTrust(ctx, req)
	if err == nil {
		v.tr.answered("", req.Title(), trustAnswer(level))
	}
	return level, err
}

// shownPlans are the plans exit_plan_mode calls presented that the
// editor shows, by call id: their approval need not repeat them.
type shownPlans struct {
	mu    sync.Mutex
	paths map[string]string
}

func (p *shownPlans) shown(callID, path string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paths == nil {
		p.paths = map[string]string{}
	}
	p.paths[callID] = path
}

// of is the plan call callID presented, "" when the editor does not
// show it (or p is nil: nothing is shown).
func (p *shownPlans) of(callID string) string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paths[callID]
}

// confirmAnswer is the choice the user made, as the question offered it.
func confirmAnswer(o dialog.ConfirmOutcome, req dialog.ConfirmRequest) string {
	switch {
	case o == dialog.ProceedAlways && req.CanAllowAlways:
		return actionAlwaysAllow
	case o == dialog.ProceedAlwaysPrefix && len(req.AlwaysPrefixes) > 0:
		return prefixAction(req)
	case o.Allows():
		return actionAllowOnce
	}
	return "declined"
}

// landAnswer is the user's answer to an edit: "" when the user was not
// the one who decided (the file changed meanwhile, the editor could not
// take it), which the call's result tells.
func landAnswer(l dialog.Landing) string {
	switch l.Outcome {
	case dialog.Applied:
		if l.AllowAlways {
			return actionAlwaysApply
		}
		return actionApply
	case dialog.Modified:
		return actionApply + ", with changes of the user's"
	case dialog.Declined:
		return "declined"
	}
	return ""
}

// filesAnswer is the user's answer to changes of several files landed
// as one (yes: the action that lands them), "" when it says nothing of
// the user's.
func filesAnswer(ds []dialog.Decision, yes string) string {
	switch {
	case slices.ContainsFunc(ds, func(d dialog.Decision) bool { return d.Outcome == dialog.Applied || d.Outcome == dialog.Modified }):
		return yes
	case len(ds) > 0 && !slices.ContainsFunc(ds, func(d dialog.Decision) bool { return d.Outcome != dialog.Declined }):
		return "declined"
	}
	return ""
}

// askAnswer is the options chosen, by their labels, and the user's own
// words, quoted.
func askAnswer(q dialog.Question, a dialog.Answer) string {
	if a.Declined {
		return "declined"
	}
	var parts []string
	for _, id := range a.Chosen {
		if i := slices.IndexFunc(q.Options, func(o dialog.Option) bool { return o.ID == id }); i >= 0 {
			parts = append(parts, q.Options[i].Label)
		}
	}
	if a.Text != "" {
		parts = append(parts, "“"+a.Text+"”")
	}
	if len(parts) == 0 {
		return "nothing chosen"
	}
	return strings.Join(parts, ", ")
}

// trustAnswer is the trust question's answer by its label; closing the
// question answers nothing.
func trustAnswer(level string) string {
	for _, o := range dialog.TrustOptions() {
		if o.Level == level {
			return o.Label
		}
	}
	return "closed without an answer"
}
