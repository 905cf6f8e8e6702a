package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// front is the user a test's prompts are put to: the parts of the port
// each call is handed (dialog.Port), each nil when that user cannot
// answer that way. A test hands its front with each call (ui.prompt,
// ui.port); the zero front is a user who can answer nothing.
type front struct {
	confirmer dialog.Confirmer
	lander    dialog.ChangeLander
	asker     dialog.Asker
}

// port is the port a front end hands a call answered by f, showing the
// call's events through emit (nil: nowhere).
func (f front) port(emit func(dialog.Event)) dialog.Port {
	return testPort{front: f, emit: emit}
}

// prompt puts text to s with f answering, and records what it emitted.
func (f front) prompt(t *testing.T, s *agent.Session, text string) (dialog.PromptResult, events) {
	t.Helper()
	return f.promptCtx(context.Background(), s, text)
}

// promptCtx is prompt under ctx; an error is the result's.
func (f front) promptCtx(ctx context.Context, s *agent.Session, text string) (dialog.PromptResult, events) {
	var evs events
	res, err := s.Prompt(ctx, dialog.Input{Text: text}, f.port(evs.emit))
	if err != nil {
		res = dialog.PromptResult{StopReason: dialog.StopError, Err: err}
	}
	return res, evs
}

// prompt puts text to s where nobody can answer a question (the zero
// front).
func prompt(t *testing.T, s *agent.Session, text string) (dialog.PromptResult, events) {
	t.Helper()
	return front{}.prompt(t, s, text)
}

// promptCtx is prompt under ctx.
func promptCtx(ctx context.Context, s *agent.Session, text string) (dialog.PromptResult, events) {
	return front{}.promptCtx(ctx, s, text)
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
	port := fromPort{show: func(from dialog.Subagent, ev dialog.Event) {
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
