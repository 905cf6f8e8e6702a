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

// Show shows ev with session/update. A subagent's text, calls and error
// are shown under its invoke_agent call (subagent.go); what is not the
// subagent's own (a notice, a switch of mode) is shown as the main
// agent's.
func (t *turn) Show(ctx context.Context, from dialog.Subagent, ev dialog.Event) {
	sess, sub := t.sess, from.CallID != ""
	switch ev := ev.(type) {
	case dialog.TextEvent:
		if sub {
			sess.subagentText(ctx, from, ev.Text)
		} else {
			t.message(ctx, ev.Text)
		}
	case dialog.ThoughtEvent:
		// A subagent's thoughts are its own: the main agent's thoughts
		// would read them as the main agent's.
		if !sub {
			sess.update(ctx, sdk.UpdateAgentThoughtText(thoughtText(ev.Thought)))
		}
	case dialog.ToolCallEvent:
		t.toolCall(ctx, from, ev.Call)
	case dialog.ToolResultEvent:
		t.toolResult(ctx, from, ev.Result)
	case dialog.ErrorEvent:
		if sub {
			sess.subagentError(ctx, from, ev.Err)
		} else {
			// The answer says it (PromptResponse's error).
			sess.log.Debug("turn error", zap.Error(ev.Err))
		}
	case dialog.RetryEvent:
		// A subagent's retries are its own accounting.
		if !sub {
			sess.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("The model request failed (%s); trying again in %s.\n", ev.Retry.Reason, ev.Retry.Delay.Round(100_000_000))))
		}
	case dialog.CompressedEvent:
		sess.compacted(ctx, ev.Compression)
	case dialog.TopicEvent:
		// A thought, not the plan: the plan is write_todos' list, which
		// each plan update replaces whole.
		sess.update(ctx, sdk.UpdateAgentThoughtText(topicThought(ev.Topic)))
		sess.showTitle(ctx, ev.Topic)
	case dialog.PlanEvent:
		if !sub {
			sess.plan(ctx, ev.Todos)
		}
	case dialog.NoticeEvent:
		// gemini-ls's own machinery is a notice where the client takes
		// them; the turn's own (a hook that stopped it) is said in it.
		if title, description := noticeOf(ev.Text); !ev.Aside || !sess.notice("warning", title, description) {
			t.say(ctx, ev.Text)
		}
	case dialog.ModeEvent:
		// A planning tool switched the mode: the modes and the config
		// options show it.
		sess.modeChanged(ctx)
		sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
	case dialog.ModelEvent:
		// /model set chose the model: the model option shows it.
		sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
	case dialog.CommandsEvent:
		// /commands reload read them again: the client lists them as read
		// now.
		cmds, _ := conversation.Commands(ctx, sess.setup())
		sess.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: available(cmds)}})
	case dialog.UsageEvent:
		t.usage(ctx, from, ev.Usage)
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

// thoughtText is a model's thought as a thought_message shows it: its
// subject in bold over its description.
func thoughtText(th dialog.Thought) string {
	if th.Subject == "" {
		return th.Description
	}
	return "**" + th.Subject + "**\n" + th.Description
}

// toolCall shows a call: the main agent's as a tool_call (with the plan
// write_todos gives and the plan file exit_plan_mode presents), a
// subagent's under its invoke_agent call.
func (t *turn) toolCall(ctx context.Context, from dialog.Subagent, c dialog.ToolCall) {
	sess := t.sess
	if from.CallID != "" {
		sess.subagentCall(ctx, from, c)
		return
	}
	sess.show(c)
	sess.showCall(toolCallUpdate(c), c.Name)
	switch {
	case c.Todos != nil:
		// write_todos' list, or the steps of the plan exit_plan_mode
		// presents, read by the tool: one plan update, not a second.
		sess.plan(ctx, c.Todos)
	case c.PresentsPlan && c.Path != "":
		sess.planFile(ctx, c.Path)
	}
}

// toolResult shows a call's result: the main agent's as its
// tool_call_update, a subagent's under its invoke_agent call.
func (t *turn) toolResult(ctx context.Context, from dialog.Subagent, r dialog.ToolResult) {
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
