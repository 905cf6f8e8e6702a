package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A subagent runs as the main agent's invoke_agent call. ACP has no
// nested tool calls, so a client sees it two ways at once:
//
//   - the subagent's calls are tool_calls of their own, their _meta
//     naming the invoke_agent call (parentToolCallId) and the agent
//     (agentName), for a client that nests them;
//   - the invoke_agent call's content is the subagent's activity so far
//     (its text, and a line per call with how it ended), in_progress
//     until its result, which keeps the list above the report, for a
//     client that knows no _meta.
//
// Gemini CLI 0.61's ACP agent shows nothing of a subagent but its call's
// end: it runs the invocation without updateOutput (gemini-3HFX2LNT.js
// 15687), and the progress object invoke_agent returns as its display is
// no content to it (toToolCallContent, 14818).

// subagentRun is what a subagent did so far, for its invoke_agent call's
// content.
type subagentRun struct {
	steps []subagentStep
}

// subagentStep is a paragraph of the subagent's text, or one of its calls.
type subagentStep struct {
	text   string // the text, or the call's title
	callID string // "" for text
	status dialog.Status
	ended  bool
}

// subagentMeta is the _meta of a subagent's tool_call and its updates.
func subagentMeta(sub dialog.Subagent) map[string]any {
	return map[string]any{"parentToolCallId": sub.CallID, "agentName": sub.Name}
}

// subagentText adds a piece of sub's text to its run.
func (sess *session) subagentText(ctx context.Context, sub dialog.Subagent, text string) {
	sess.subagentStep(ctx, sub, func(r *subagentRun) {
		if n := len(r.steps); n > 0 && r.steps[n-1].callID == "" {
			r.steps[n-1].text += text
			return
		}
		r.steps = append(r.steps, subagentStep{text: text})
	})
}

// subagentCall shows sub's call c as a tool_call of its own, and in its
// run.
func (sess *session) subagentCall(ctx context.Context, sub dialog.Subagent, c dialog.ToolCall) {
	sess.show(c)
	sess.mu.Lock()
	if sess.subagentCalls == nil {
		sess.subagentCalls = map[string]dialog.Subagent{}
	}
	sess.subagentCalls[c.CallID] = sub
	sess.mu.Unlock()
	u := toolCallUpdate(c)
	u.ToolCall.Meta = subagentMeta(sub)
	sess.showCall(u, c.Name)
	sess.subagentStep(ctx, sub, func(r *subagentRun) {
		r.steps = append(r.steps, subagentStep{text: c.Title, callID: c.CallID})
	})
}

// subagentResult ends sub's call's tool_call, and its line in its run.
func (sess *session) subagentResult(ctx context.Context, sub dialog.Subagent, res dialog.ToolResult) {
	sess.unshow(res.CallID)
	sess.mu.Lock()
	delete(sess.subagentCalls, res.CallID)
	sess.mu.Unlock()
	u := toolResultUpdate(res, sess.takeAttached(res.CallID))
	u.ToolCallUpdate.Meta = subagentMeta(sub)
	sess.update(ctx, u)
	sess.subagentStep(ctx, sub, func(r *subagentRun) {
		for i := range r.steps {
			if s := &r.steps[i]; s.callID == res.CallID && !s.ended {
				s.status, s.ended = res.Status, true
			}
		}
	})
}

// subagentError adds what failed sub's run to it.
func (sess *session) subagentError(ctx context.Context, sub dialog.Subagent, err error) {
	if err == nil {
		return
	}
	sess.subagentStep(ctx, sub, func(r *subagentRun) {
		r.steps = append(r.steps, subagentStep{text: "Error: " + err.Error()})
	})
}

// subagentStep changes sub's run with step and shows the run as its
// invoke_agent call's content.
func (sess *session) subagentStep(ctx context.Context, sub dialog.Subagent, step func(*subagentRun)) {
	sess.mu.Lock()
	r, ok := sess.subagents[sub.CallID]
	if !ok {
		if sess.subagents == nil {
			sess.subagents = map[string]*subagentRun{}
		}
		r = &subagentRun{}
		sess.subagents[sub.CallID] = r
	}
	step(r)
	text := r.markdown()
	sess.mu.Unlock()
	sess.update(ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(sub.CallID),
		Status:     sdk.Ptr(sdk.ToolCallStatusInProgress),
		Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))},
	}})
}

// takeSubagent returns and forgets what the subagent run by call id did,
// as its call's content: nil when the call ran none.
func (sess *session) takeSubagent(callID string) []sdk.ToolCallContent {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	r, ok := sess.subagents[callID]
	if !ok {
		return nil
	}
	delete(sess.subagents, callID)
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(r.markdown()))}
}

// subagentOf is the subagent whose call id is, if it is one's.
func (sess *session) subagentOf(callID string) (dialog.Subagent, bool) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sub, ok := sess.subagentCalls[callID]
	return sub, ok
}

// markdown is the run as Markdown: its text as paragraphs, its calls as
// a list, each with how it ended.
func (r *subagentRun) markdown() string {
	var b strings.Builder
	for _, s := range r.steps {
		if s.callID == "" {
			if t := strings.TrimSpace(s.text); t != "" {
				b.WriteString(dialog.ParagraphBreak(b.String()) + t + "\n\n")
			}
			continue
		}
		b.WriteString("- " + s.text)
		if s.ended {
			b.WriteString(" — " + string(s.status))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
