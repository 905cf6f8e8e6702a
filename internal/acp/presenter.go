package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// turn is the port of one prompt's turn in a session
// (conversation.View, handed with the prompt): its events are shown with
// session/update (Show), its
// questions asked with session/request_permission (Land and Confirm in
// permission.go, LandFiles in revert.go, Ask in ask.go, AskTrust in
// trust.go). Being the turn's own, it starts the message the turn's
// notes are paragraphs of afresh.
type turn struct {
	sess *session
	// tail is the end of the turn's message so far, for say.
	tail string
}

// Show shows ev with session/update, as the method of its kind says.
// A model answer's tokens are a usage_update (usage.go).
func (t *turn) Show(ctx context.Context, from dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		t.Text(ctx, from, ev.Text)
	case dialog.ThoughtEvent:
		t.Thought(ctx, from, ev.Thought)
	case dialog.ToolCallEvent:
		t.ToolCall(ctx, from, ev.Call)
	case dialog.ToolResultEvent:
		t.ToolResult(ctx, from, ev.Result)
	case dialog.ErrorEvent:
		t.Error(ctx, from, ev.Err)
	case dialog.RetryEvent:
		t.Retry(ctx, from, ev.Retry)
	case dialog.CompressedEvent:
		t.Compressed(ctx, from, ev.Compression)
	case dialog.TopicEvent:
		t.Topic(ctx, from, ev.Topic)
	case dialog.NoticeEvent:
		t.Notice(ctx, from, ev.Text)
	case dialog.ModeEvent:
		t.Mode(ctx, from, ev.Mode)
	case dialog.ModelEvent:
		t.Model(ctx, from, ev.Model)
	case dialog.CommandsEvent:
		t.Commands(ctx, from)
	case dialog.UsageEvent:
		t.Usage(ctx, from, ev.Usage)
	}
}

// newTurn is the view of the session's next prompt's turn.
func (sess *session) newTurn() *turn { return &turn{sess: sess} }

// say adds a paragraph of gemini-ls's own to the agent's message.
func (t *turn) say(ctx context.Context, text string) {
	t.message(ctx, dialog.ParagraphBreak(t.tail)+text)
}

// message sends text as the agent's message, keeping its end for say.
func (t *turn) message(ctx context.Context, text string) {
	if text == "" {
		return
	}
	t.tail = lastRunes(t.tail+text, 2)
	t.sess.update(ctx, sdk.UpdateAgentMessageText(text))
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

// A subagent's text, calls and error are shown under its invoke_agent
// call (subagent.go); what is not the subagent's own (a notice, a switch
// of mode) is shown as the main agent's.

func (t *turn) Text(ctx context.Context, from dialog.Subagent, text string) {
	if from.CallID != "" {
		t.sess.subagentText(ctx, from, text)
		return
	}
	t.message(ctx, text)
}

func (t *turn) Thought(ctx context.Context, from dialog.Subagent, th dialog.Thought) {
	if from.CallID != "" {
		// Its thoughts are its own: the main agent's thoughts would read
		// them as the main agent's.
		return
	}
	text := th.Description
	if th.Subject != "" {
		text = "**" + th.Subject + "**\n" + text
	}
	t.sess.update(ctx, sdk.UpdateAgentThoughtText(text))
}

func (t *turn) ToolCall(ctx context.Context, from dialog.Subagent, c dialog.ToolCall) {
	sess := t.sess
	if from.CallID != "" {
		sess.subagentCall(ctx, from, c)
		return
	}
	sess.show(c)
	sess.update(ctx, toolCallUpdate(c))
	if c.Todos != nil {
		sess.plan(ctx, c.Todos)
	}
	if c.PresentsPlan && c.Path != "" {
		sess.planFile(ctx, c.Path)
	}
}

func (t *turn) ToolResult(ctx context.Context, from dialog.Subagent, r dialog.ToolResult) {
	sess := t.sess
	if from.CallID != "" {
		sess.subagentResult(ctx, from, r)
		return
	}
	sess.unshow(r.CallID)
	// An invoke_agent call keeps what its subagent did above its report.
	content := append(sess.takeAttached(r.CallID), sess.takeSubagent(r.CallID)...)
	sess.update(ctx, toolResultUpdate(r, content))
}

func (t *turn) Error(ctx context.Context, from dialog.Subagent, err error) {
	if from.CallID != "" {
		t.sess.subagentError(ctx, from, err)
		return
	}
	// The answer says it (PromptResponse's error).
	t.sess.log.Debug("turn error", zap.Error(err))
}

func (t *turn) Retry(ctx context.Context, from dialog.Subagent, r dialog.RetryInfo) {
	if from.CallID != "" {
		return // the subagent's own accounting
	}
	t.sess.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("The model request failed (%s); trying again in %s.\n", r.Reason, r.Delay.Round(100_000_000))))
}

func (t *turn) Compressed(ctx context.Context, _ dialog.Subagent, c dialog.CompressionInfo) {
	t.sess.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("The history was compressed from %d to %d tokens.\n", c.Before, c.After)))
}

// Topic is a thought, not the plan: the plan is write_todos' list, which
// each plan update replaces whole.
func (t *turn) Topic(ctx context.Context, _ dialog.Subagent, topic dialog.Topic) {
	t.sess.update(ctx, sdk.UpdateAgentThoughtText(topicThought(topic)))
	t.sess.showTitle(ctx, topic)
}

func (t *turn) Notice(ctx context.Context, _ dialog.Subagent, text string) {
	t.say(ctx, text)
}

// Mode: a planning tool switched the mode: the modes and the config
// options show it.
func (t *turn) Mode(ctx context.Context, _ dialog.Subagent, _ dialog.ApprovalMode) {
	sess := t.sess
	sess.modeChanged(ctx)
	sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
}

// Model: /model set chose the model: the model option shows it.
func (t *turn) Model(ctx context.Context, _ dialog.Subagent, _ string) {
	sess := t.sess
	sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
}

// Commands: /commands reload read them again: the client lists them as
// read now.
func (t *turn) Commands(ctx context.Context, _ dialog.Subagent) {
	sess := t.sess
	cmds, _ := conversation.Commands(ctx, sess.setup())
	sess.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: available(cmds)}})
}

// topicThought is update_topic's topic as a thought is shown: its title
// as the subject, then its summary (when it starts the topic) and the
// model's intent.
func topicThought(t dialog.Topic) string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("**Topic: " + t.Title + "**\n")
	}
	if t.New && strings.TrimSpace(t.Summary) != "" {
		b.WriteString(t.Summary + "\n")
	}
	b.WriteString("Intent: " + t.Intent + "\n")
	return b.String()
}
