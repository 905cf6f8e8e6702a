package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// ContentGenerator hides which backend serves the model.
type ContentGenerator interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
	CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error)
}

// EventKind names what an Event carries.
type EventKind string

const (
	EventText       EventKind = "text"
	EventThought    EventKind = "thought"
	EventToolCall   EventKind = "toolCall"
	EventToolResult EventKind = "toolResult"
	EventUsage      EventKind = "usage"
	EventError      EventKind = "error"
	// EventRetry: a model request failed and is tried again after a wait.
	EventRetry EventKind = "retry"
	// EventCompressed: the history was summarised to fit the context window.
	EventCompressed EventKind = "compressed"
	// EventNotice: something the user must be told that is not the
	// model's text, such as a switch to the fallback model.
	EventNotice EventKind = "notice"
	// EventMode: a call switched the session's approval mode (the
	// planning tools); Mode is the new one.
	EventMode EventKind = "mode"
	// EventModel: a command (/model set) chose the model every session's
	// requests go to from now on; Model is it as named (an alias or a
	// concrete model).
	EventModel EventKind = "model"
	// EventTopic: the model named what it is doing (update_topic); Topic
	// is the session's topic now. Front ends show it where they show the
	// turn's progress.
	EventTopic EventKind = "topic"
)

// Event is one thing that happened during a turn, in order.
type Event struct {
	Kind EventKind

	Text string // EventText: a delta

	Thought Thought // EventThought

	ToolCall   ToolCall   // EventToolCall
	ToolResult ToolResult // EventToolResult

	// EventUsage: the response's tokens, and the sums so far of the
	// prompt and of the whole session; Model is the concrete model that
	// answered (where an auto routed the prompt). EventModel uses Model.
	Usage, PromptUsage, SessionUsage Usage
	Model                            string

	Err error // EventError

	Retry      RetryInfo       // EventRetry
	Compressed CompressionInfo // EventCompressed
	// EventNotice uses Text.

	Mode tools.ApprovalMode // EventMode

	Topic tools.Topic // EventTopic
}

// RetryInfo describes a retry about to wait.
type RetryInfo struct {
	Attempt int // the attempt that failed, from 1
	Delay   time.Duration
	Reason  string // why it failed, in words
}

// CompressionInfo is the history's size in tokens before and after it was
// compressed.
type CompressionInfo struct {
	Before, After int32
}

// Thought is a model thought split as the reference shows it: a **subject**
// line and the rest.
type Thought struct {
	Subject     string
	Description string
}

// ToolCall is a call the model made, before it runs.
type ToolCall struct {
	CallID string
	Name   string
	Title  string
	// Kind is what the call can do; "" when the call could not be built.
	Kind tools.Kind
	Args map[string]any
	// Path is the file the call is about, for the front end to show
	// (tools.Located: exit_plan_mode's plan); "" for most calls.
	Path string
}

// ToolResult is how a call ended.
type ToolResult struct {
	CallID  string
	Name    string
	Status  tools.Status
	Display string // Markdown
}

// Usage is the token accounting of one model response.
type Usage struct {
	PromptTokens     int32
	CandidatesTokens int32
	ThoughtsTokens   int32
	TotalTokens      int32
}

// usageOf is a response's usage metadata (nil for none) as a Usage.
func usageOf(m *genai.GenerateContentResponseUsageMetadata) Usage {
	if m == nil {
		return Usage{}
	}
	return Usage{
		PromptTokens:     m.PromptTokenCount,
		CandidatesTokens: m.CandidatesTokenCount,
		ThoughtsTokens:   m.ThoughtsTokenCount,
		TotalTokens:      m.TotalTokenCount,
	}
}

// Add is the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CandidatesTokens: u.CandidatesTokens + v.CandidatesTokens,
		ThoughtsTokens:   u.ThoughtsTokens + v.ThoughtsTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// StopReason says why a prompt's turn ended.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopCancelled StopReason = "cancelled"
	StopMaxTurns  StopReason = "max_turns"
	StopError     StopReason = "error"
	// StopMaxTokens: the model's last answer was cut at its output token
	// limit (finish reason MAX_TOKENS); the text so far is kept.
	StopMaxTokens StopReason = "max_tokens"
	// StopLoopDetected: the model repeated itself (the same call, or the
	// same text) and the turn was stopped.
	StopLoopDetected StopReason = "loop_detected"
)

// ErrAnswerCut is the Err of a StopMaxTokens result.
var ErrAnswerCut = errors.New("the model's answer was cut at its output token limit (finish reason MAX_TOKENS)")

// EmptyAnswerError is a model answer with nothing to show or run, after
// Attempts requests: blocked, cut before any text, or simply empty.
type EmptyAnswerError struct {
	What         string // what the model returned, in words
	FinishReason genai.FinishReason
	Attempts     int
}

func (e *EmptyAnswerError) Error() string {
	msg := "the model returned no answer: " + e.What
	if e.FinishReason != "" {
		msg += fmt.Sprintf(" (finish reason %s)", e.FinishReason)
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf("; asked %d times", e.Attempts)
	}
	return msg
}

// PromptResult is the outcome of Session.Prompt.
type PromptResult struct {
	StopReason StopReason
	Text       string // all model text of the turn, concatenated
	Usage      Usage  // summed over the turn
	ToolCalls  int
	Err        error // set with StopError
	// Model is the concrete model the turn's last request went to (the
	// one an auto routed it to, or fell back to); "" when none was made.
	Model string
}

// ConfirmOutcome is the user's answer to a permission request.
type ConfirmOutcome string

const (
	ProceedOnce   ConfirmOutcome = "proceed_once"
	ProceedAlways ConfirmOutcome = "proceed_always"
	Cancel        ConfirmOutcome = "cancel"
)

// Allows reports whether the answer lets the call run.
func (o ConfirmOutcome) Allows() bool { return o == ProceedOnce || o == ProceedAlways }

// ConfirmRequest asks the user to approve a call that is not an edit
// (shell, web fetch, MCP tools).
type ConfirmRequest struct {
	SessionID string
	CallID    string
	// Tool is the tool the call is of, for a front end that cannot ask
	// to name in its refusal; "" when the question is not about a call
	// (a switch of model, a rewind's conflict).
	Tool    string
	Kind    string
	Title   string
	Details string
	// CanAllowAlways says that ProceedAlways would hold: calls like this
	// one would run without asking for the rest of the session. The front
	// end offers "always allow" only then; without it, ProceedAlways
	// allows this call once, as ProceedOnce does.
	CanAllowAlways bool
}

// ErrCannotAsk is wrapped by a Confirmer's or an Asker's error when there
// is nobody to ask; the error's text, written for the model, says how to
// allow the call. It is tools.ErrCannotAsk, which the calls that ask see.
var ErrCannotAsk = tools.ErrCannotAsk

// Confirmer asks the user. Each front end has one; it may return Cancel with
// a reason when there is nobody to ask.
type Confirmer interface {
	Confirm(ctx context.Context, req ConfirmRequest) (ConfirmOutcome, error)
}

// AskRequest is a call's question to the user.
type AskRequest struct {
	SessionID string
	CallID    string
	Question  tools.Question
}

// Asker puts calls' questions to the user (ask_user, plan approval). Each
// front end that can ask has one; an error wrapping ErrCannotAsk says,
// for the model, that nobody can answer.
type Asker interface {
	Ask(ctx context.Context, req AskRequest) (tools.Answer, error)
}

// LandRequest hands a front end an edit call's change to land.
type LandRequest struct {
	SessionID string
	CallID    string
	Change    workspace.FileChange
	// Ask says the session's approval service did not allow the change:
	// the front end presents the question, with the change, and lands it
	// only if the user allows it. Without Ask the change is allowed.
	Ask bool
	// CanAllowAlways says an "always allow edits" answer would hold, for
	// the front end to offer it only then (as ConfirmRequest's).
	CanAllowAlways bool
}

// Landing is what became of a change a front end was asked to land.
type Landing struct {
	tools.Decision
	// AllowAlways says the user, asked, allowed edits for the rest of the
	// session; the agent's approval service records it.
	AllowAlways bool
}

// ChangeLander presents edits and lands those allowed. Each front end has
// one; it never decides what is allowed (LandRequest.Ask says).
type ChangeLander interface {
	Land(ctx context.Context, req LandRequest) (Landing, error)
}
