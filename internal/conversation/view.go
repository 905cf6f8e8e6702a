package conversation

import (
	"context"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A front end shows a turn through a View it makes for that turn and
// hands the host with the turn's prompt (Host.Prompt, Claim.Prompt): the
// turn's events reach its methods, one per kind, and the questions the
// turn asks (the agent's, through the session's approval door, and the
// folder trust question) reach its Questions, never another turn's.

// Events shows what a turn does, one method per kind of event, in the
// order the turn does it, one at a time. ctx is the turn's. from is the
// subagent the event is of, for a front end to show it nested under the
// subagent's invoke_agent call; zero for the main agent's own.
//
// A kind added here fails to compile in every front end until it shows
// the kind, or says it ignores it by embedding the kind's Ignore type.
type Events interface {
	// Text is a piece of the model's text, to append to what it said.
	Text(ctx context.Context, from dialog.Subagent, text string)
	// Thought is one of the model's thoughts.
	Thought(ctx context.Context, from dialog.Subagent, t dialog.Thought)
	// ToolCall is a call the model made, before it runs.
	ToolCall(ctx context.Context, from dialog.Subagent, c dialog.ToolCall)
	// ToolResult is how a call ended.
	ToolResult(ctx context.Context, from dialog.Subagent, r dialog.ToolResult)
	// Usage is a model response's tokens, and the sums so far.
	Usage(ctx context.Context, from dialog.Subagent, u dialog.UsageReport)
	// Error is what failed the turn, or a subagent's run.
	Error(ctx context.Context, from dialog.Subagent, err error)
	// Retry: a model request failed and is tried again after a wait.
	Retry(ctx context.Context, from dialog.Subagent, r dialog.RetryInfo)
	// Compressed: the history was summarised to fit the context window.
	Compressed(ctx context.Context, from dialog.Subagent, c dialog.CompressionInfo)
	// Notice is something the user must be told that is not the model's
	// text, such as a switch to the fallback model.
	Notice(ctx context.Context, from dialog.Subagent, text string)
	// Mode: the session's approval mode is now mode (a planning tool's
	// call, /plan).
	Mode(ctx context.Context, from dialog.Subagent, mode dialog.ApprovalMode)
	// Model: a command (/model set) chose the model every session's
	// requests go to from now on, named as the user named it.
	Model(ctx context.Context, from dialog.Subagent, model string)
	// Topic: the model named what it is doing (update_topic); it is the
	// session's topic now.
	Topic(ctx context.Context, from dialog.Subagent, t dialog.Topic)
	// Commands: the commands a prompt may start with were read again
	// (/commands reload); a front end that pushes its list sends it anew.
	Commands(ctx context.Context, from dialog.Subagent)
}

// Questions put what a turn asks to its user. They never decide what is
// allowed: each request says whether to ask.
type Questions interface {
	// Land presents an edit call's change and lands it if allowed.
	Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error)
	// LandFiles lands a rewind's or a restore's changes as one, or an
	// edit call's across files (a rename).
	LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error)
	// Confirm asks the user about a call, a switch of model or a
	// rewind's conflict; an error wrapping dialog.ErrCannotAsk says nobody
	// can answer.
	Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error)
	// Ask puts a call's question (ask_user, plan approval) to the user.
	Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error)
	// AskTrust asks whether to trust a folder (trust.go).
	dialog.TrustAsker
}

// View is one turn's, made by its front end for it: it shows the turn's
// events and puts the turn's questions.
type View interface {
	Events
	Questions
}

// ReplayView shows a saved turn again (Exchange.Show): its text, and
// each call followed by how it ended. Nothing else of a turn is saved.
type ReplayView interface {
	Text(ctx context.Context, from dialog.Subagent, text string)
	ToolCall(ctx context.Context, from dialog.Subagent, c dialog.ToolCall)
	ToolResult(ctx context.Context, from dialog.Subagent, r dialog.ToolResult)
}

// The Ignore types are what a view embeds to leave one kind of event
// out on purpose: one type per kind, so that a view names each kind it
// does not show, and a kind added later is left out by none.
type (
	IgnoreText       struct{}
	IgnoreThought    struct{}
	IgnoreToolCall   struct{}
	IgnoreToolResult struct{}
	IgnoreUsage      struct{}
	IgnoreError      struct{}
	IgnoreRetry      struct{}
	IgnoreCompressed struct{}
	IgnoreNotice     struct{}
	IgnoreMode       struct{}
	IgnoreModel      struct{}
	IgnoreTopic      struct{}
	IgnoreCommands   struct{}
)

func (IgnoreText) Text(context.Context, dialog.Subagent, string)                             {}
func (IgnoreThought) Thought(context.Context, dialog.Subagent, dialog.Thought)               {}
func (IgnoreToolCall) ToolCall(context.Context, dialog.Subagent, dialog.ToolCall)            {}
func (IgnoreToolResult) ToolResult(context.Context, dialog.Subagent, dialog.ToolResult)      {}
func (IgnoreUsage) Usage(context.Context, dialog.Subagent, dialog.UsageReport)               {}
func (IgnoreError) Error(context.Context, dialog.Subagent, error)                            {}
func (IgnoreRetry) Retry(context.Context, dialog.Subagent, dialog.RetryInfo)                 {}
func (IgnoreCompressed) Compressed(context.Context, dialog.Subagent, dialog.CompressionInfo) {}
func (IgnoreNotice) Notice(context.Context, dialog.Subagent, string)                         {}
func (IgnoreMode) Mode(context.Context, dialog.Subagent, dialog.ApprovalMode)                {}
func (IgnoreModel) Model(context.Context, dialog.Subagent, string)                           {}
func (IgnoreTopic) Topic(context.Context, dialog.Subagent, dialog.Topic)                     {}
func (IgnoreCommands) Commands(context.Context, dialog.Subagent)                             {}

// Show hands e, as the agent emits it, to the method of v that shows its
// kind. It is the one place an event's kind is looked at: the agent
// emits events as values, a front end sees only its view. The host shows
// each event of a turn with it; a front end's test shows its view every
// kind of dialog.Kinds with it.
func Show(ctx context.Context, v Events, e dialog.Event) {
	from := e.From()
	switch e := e.(type) {
	case dialog.TextEvent:
		v.Text(ctx, from, e.Text)
	case dialog.ThoughtEvent:
		v.Thought(ctx, from, e.Thought)
	case dialog.ToolCallEvent:
		v.ToolCall(ctx, from, e.Call)
	case dialog.ToolResultEvent:
		v.ToolResult(ctx, from, e.Result)
	case dialog.UsageEvent:
		v.Usage(ctx, from, e.Usage)
	case dialog.ErrorEvent:
		v.Error(ctx, from, e.Err)
	case dialog.RetryEvent:
		v.Retry(ctx, from, e.Retry)
	case dialog.CompressedEvent:
		v.Compressed(ctx, from, e.Compression)
	case dialog.NoticeEvent:
		v.Notice(ctx, from, e.Text)
	case dialog.ModeEvent:
		v.Mode(ctx, from, e.Mode)
	case dialog.ModelEvent:
		v.Model(ctx, from, e.Model)
	case dialog.TopicEvent:
		v.Topic(ctx, from, e.Topic)
	case dialog.CommandsEvent:
		v.Commands(ctx, from)
	default:
		// dialog closes the set of kinds, and TestShowCoversEveryKind
		// holds every kind of dialog.Kinds to a case here.
		panic(fmt.Sprintf("conversation: no view method shows a %T", e))
	}
}

// asking puts the agent's questions to the turn that asks them: the one
// running in the request's session, through the Questions its claim was
// given. It is every build's Lander, Confirmer and Asker.
type asking struct{ turns *Turns }

func (a asking) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	q, err := a.of(req.SessionID)
	if err != nil {
		return dialog.Landing{}, err
	}
	return q.Land(ctx, req)
}

func (a asking) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	q, err := a.of(req.SessionID)
	if err != nil {
		return nil, err
	}
	return q.LandFiles(ctx, req)
}

func (a asking) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	q, err := a.of(req.SessionID)
	if err != nil {
		return dialog.Cancel, err
	}
	return q.Confirm(ctx, req)
}

func (a asking) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	q, err := a.of(req.SessionID)
	if err != nil {
		return dialog.Answer{}, err
	}
	return q.Ask(ctx, req)
}

// of is the Questions of session id's running turn.
func (a asking) of(id string) (Questions, error) {
	if q, ok := a.turns.questions(id); ok {
		return q, nil
	}
	return nil, fmt.Errorf("%w: no prompt of session %q is running to ask its user", dialog.ErrCannotAsk, id)
}
