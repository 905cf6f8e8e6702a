package conversation_test

// A fourth front end, in-process: its wire is Go channels. It is what the
// host asks of any front end, and nothing else: a codec (prompts in,
// outcomes out) and a view of each turn (its events shown, its questions
// put). Its one user sees every turn the same way, so one view serves.

import (
	"context"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// request is one prompt on the wire, for session id.
type request struct {
	id, text string
}

// question is one of the agent's questions on the wire: what is asked,
// and where the user's yes or no goes.
type question struct {
	what   string
	answer chan bool
}

// chanFront is the front end: the user's side reads shown and questions
// and writes prompts.
type chanFront struct {
	host      *conversation.Host[struct{}]
	prompts   chan request
	outcomes  chan conversation.Outcome
	shown     chan string
	questions chan question
}

func newChanFront(cfg conversation.Config) *chanFront {
	f := &chanFront{
		prompts:   make(chan request),
		outcomes:  make(chan conversation.Outcome),
		shown:     make(chan string, 100),
		questions: make(chan question),
	}
	f.host = conversation.NewHost[struct{}](cfg)
	return f
}

// serve is the codec: each prompt read runs through the host, and its
// outcome is written back, until ctx ends.
func (f *chanFront) serve(ctx context.Context) {
	for {
		select {
		case r := <-f.prompts:
			f.outcomes <- f.host.Prompt(ctx, r.id, dialog.Input{Text: r.text}, f)
		case <-ctx.Done():
			return
		}
	}
}

// ask puts what to the user and waits for their answer.
func (f *chanFront) ask(ctx context.Context, what string) (bool, error) {
	q := question{what: what, answer: make(chan bool, 1)}
	select {
	case f.questions <- q:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case yes := <-q.answer:
		return yes, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Show shows the model's text, and a call by its tool; what it does not
// show, it says.
func (f *chanFront) Show(_ context.Context, _ dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		f.shown <- "text: " + ev.Text
	case dialog.ToolCallEvent:
		f.shown <- "call: " + ev.Call.Name
	case dialog.ThoughtEvent, dialog.ToolResultEvent, dialog.UsageEvent, dialog.ErrorEvent, dialog.RetryEvent,
		dialog.CompressedEvent, dialog.NoticeEvent, dialog.ModeEvent, dialog.ModelEvent, dialog.TopicEvent, dialog.CommandsEvent:
	}
}

// Land lands an allowed change on disk, asking first where it must.
func (f *chanFront) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if req.Ask {
		yes, err := f.ask(ctx, "edit "+req.Change.Path)
		if err != nil || !yes {
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined, Reason: "the user said no"}}, err
		}
	}
	d, err := tools.LandOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: d}, err
}

// LandFiles lands a revert on disk once the user allows it.
func (f *chanFront) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	yes, err := f.ask(ctx, req.Title)
	if err != nil {
		return nil, err
	}
	out := make([]dialog.Decision, len(req.Changes))
	for i, c := range req.Changes {
		out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: "the user said no"}
		if yes {
			if out[i], err = conversation.LandRevertOnDisk(ctx, c); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Confirm asks about a call.
func (f *chanFront) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	yes, err := f.ask(ctx, fmt.Sprintf("%s: %s", req.Tool, req.Title))
	if err != nil || !yes {
		return dialog.Cancel, err
	}
	return dialog.ProceedOnce, nil
}

// AskTrust puts the trust question: yes trusts the folder.
func (f *chanFront) AskTrust(ctx context.Context, req dialog.TrustRequest) (string, error) {
	yes, err := f.ask(ctx, req.Title()+" "+req.Folder)
	if err != nil || !yes {
		return "", err
	}
	return settings.TrustFolder, nil
}

// Ask puts a call's question: yes chooses its first option.
func (f *chanFront) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	yes, err := f.ask(ctx, req.Question.Text)
	if err != nil || !yes || len(req.Question.Options) == 0 {
		return dialog.Answer{Declined: true}, err
	}
	return dialog.Answer{Chosen: []string{req.Question.Options[0].ID}}, nil
}
