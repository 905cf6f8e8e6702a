package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// front is what a test's user answers with: the parts of the port its
// agent's calls are handed (dialog.Port), each nil when the test's user
// cannot answer that way.
type front struct {
	confirmer dialog.Confirmer
	lander    dialog.ChangeLander
	asker     dialog.Asker
}

// fronts are the fronts of this package's tests' agents, as newAgent was
// given them; each leaves with its test.
var fronts sync.Map // *agent.Agent → front

// keepFront makes f the front of a's calls for the rest of t.
func keepFront(t *testing.T, a *agent.Agent, f front) {
	fronts.Store(a, f)
	t.Cleanup(func() { fronts.Delete(a) })
}

// portFor is the port a front end hands a call of s: its agent's front,
// showing the call's events through emit (nil: nowhere).
func portFor(s *agent.Session, emit func(dialog.Event)) dialog.Port {
	return portOf(agent.AgentOf(s), emit)
}

// portOf is the port a front end hands a call of a session of a.
func portOf(a *agent.Agent, emit func(dialog.Event)) dialog.Port {
	f, _ := fronts.Load(a)
	fe, _ := f.(front)
	return testPort{front: fe, emit: emit}
}

// testPort is a test's dialog.Port: a part its front lacks answers that
// nobody can (dialog.ErrCannotAsk), or refuses what must be asked.
type testPort struct {
	front
	emit func(dialog.Event)
}

func (p testPort) Show(_ context.Context, _ dialog.Subagent, ev dialog.Event) {
	if p.emit != nil {
		p.emit(ev)
	}
}

func (p testPort) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	if p.confirmer == nil {
		return dialog.Cancel, fmt.Errorf("%w: no one can be asked for approval", dialog.ErrCannotAsk)
	}
	return p.confirmer.Confirm(ctx, req)
}

func (p testPort) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	if p.asker == nil {
		return dialog.Answer{}, fmt.Errorf("%w: this front end cannot put a question", dialog.ErrCannotAsk)
	}
	return p.asker.Ask(ctx, req)
}

func (p testPort) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if p.lander == nil {
		return dialog.Landing{}, fmt.Errorf("no front end lands file changes; the change was not applied")
	}
	return p.lander.Land(ctx, req)
}

func (p testPort) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	files, ok := p.lander.(dialog.FilesLander)
	if !ok {
		return nil, fmt.Errorf("this front end cannot land a revert")
	}
	return files.LandFiles(ctx, req)
}

// shown is an event as a port was shown it: with the subagent it is of.
type shown struct {
	from dialog.Subagent
	ev   dialog.Event
}

// promptShown is prompt, with the subagent of each event shown.
func promptShown(t *testing.T, s *agent.Session, text string) (dialog.PromptResult, []shown) {
	t.Helper()
	var out []shown
	port := fromPort{testPort: portFor(s, nil).(testPort), show: func(from dialog.Subagent, ev dialog.Event) {
		out = append(out, shown{from, ev})
	}}
	res, err := s.Prompt(t.Context(), dialog.Input{Text: text}, port)
	if err != nil {
		t.Fatal(err)
	}
	return res, out
}

// fromPort is a test's port that shows each event through show.
type fromPort struct {
	testPort
	show func(dialog.Subagent, dialog.Event)
}

func (p fromPort) Show(_ context.Context, from dialog.Subagent, ev dialog.Event) { p.show(from, ev) }
