package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Prompt runs one turn of the session: the model's text and thoughts and
// every tool call stream as session/updates, and the answer says why the
// turn ended. The SDK cancels ctx on session/cancel (and on a newer
// prompt for the session); the turn then ends promptly with "cancelled".
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	sess, release, err := s.acquire(ctx, p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer release()
	in, err := sess.input(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, invalidParams(err.Error())
	}
	// The prompt ends with the connection too, whatever the SDK does.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.life, cancel)
	defer stop()
	t := sess.newTurn()
	o := sess.prompt(ctx, in, t)
	switch o.Ending {
	case conversation.Busy:
		return sdk.PromptResponse{}, invalidParams(o.Err.Error())
	case conversation.Unknown:
		// Closed or loaded again while it waited for the turn before.
		return sdk.PromptResponse{}, unknownSession(p.SessionId)
	case conversation.Refused:
		return sdk.PromptResponse{}, fmt.Errorf("running the prompt: %w", o.Err)
	case conversation.NotRun:
		// Said in the message, as Gemini CLI's ACP commands say theirs.
		t.message(ctx, conversation.Sentence(o.NotRun.Error()))
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	sess.showActivity(ctx)
	return t.answer(ctx, o)
}

// prompt runs in as the session's prompt, shown and asked through t,
// its folder's trust settled first (trust.go).
func (sess *session) prompt(ctx context.Context, in dialog.Input, t *turn) conversation.Outcome {
	claim, err := sess.srv.host.Begin(ctx, sess.id)
	if err != nil {
		return conversation.NotBegun(ctx, err)
	}
	defer claim.End()
	sess.settleTrust(claim, in, t)
	return claim.Prompt(in, t)
}

// Cancel cancels the session's running prompt. The SDK cancels the
// prompt's request context too, but it forgets the cancel of a prompt
// that took over from an older one once the older returns; the turn's
// own cancel always reaches it.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s.host.Cancel(string(p.SessionId))
	return nil
}

// answer turns how the prompt ended into its answer, telling the user in
// the turn's message what the stop reason alone cannot.
func (t *turn) answer(ctx context.Context, o conversation.Outcome) (sdk.PromptResponse, error) {
	out := sdk.PromptResponse{Usage: &sdk.Usage{
		InputTokens:  int(o.Usage.PromptTokens),
		OutputTokens: int(o.Usage.CandidatesTokens),
		TotalTokens:  int(o.Usage.TotalTokens),
	}}
	if o.Usage.ThoughtsTokens > 0 {
		out.Usage.ThoughtTokens = sdk.Ptr(int(o.Usage.ThoughtsTokens))
	}
	out.Meta = map[string]any{"quota": quota(o)}
	switch o.Ending {
	case conversation.Done:
		out.StopReason = sdk.StopReasonEndTurn
	case conversation.Cancelled:
		out.StopReason = sdk.StopReasonCancelled
	case conversation.MaxTurns:
		out.StopReason = sdk.StopReasonMaxTurnRequests
		t.say(ctx, o.Explanation())
	case conversation.MaxTokens:
		out.StopReason = sdk.StopReasonMaxTokens
		t.say(ctx, o.Explanation())
	case conversation.LoopDetected:
		out.StopReason = sdk.StopReasonEndTurn
		t.say(ctx, o.Explanation())
	default:
		// The message is what a client shows: the failure's sentence,
		// which says what to do (an API error's, apierror's), as 0.61
		// puts its error's message there; data keeps it for clients that
		// read that, and the failure's kind (errorKind: invalid_api_key,
		// quota, network, …), where it has one, for a client to offer the
		// fix from.
		msg := o.Explanation()
		data := map[string]any{"error": msg}
		if kind := o.ErrorKind(); kind != "" {
			data["errorKind"] = kind
		}
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: msg, Data: data}
	}
	return out, nil
}

// quota is the prompt's tokens as Gemini CLI 0.61's ACP agent reports
// them in the answer's _meta: in all, and by the concrete model the
// prompt's requests went to (where an auto routed it), so a client sees
// which model answered.
func quota(o conversation.Outcome) map[string]any {
	count := func(u dialog.Usage) map[string]any {
		return map[string]any{"input_tokens": u.PromptTokens, "output_tokens": u.CandidatesTokens}
	}
	usage := []any{}
	if o.Model != "" && (o.Usage.PromptTokens > 0 || o.Usage.CandidatesTokens > 0) {
		usage = append(usage, map[string]any{"model": o.Model, "token_count": count(o.Usage)})
	}
	return map[string]any{"token_count": count(o.Usage), "model_usage": usage}
}

// toolCallUpdate shows call c as pending, at its location: an editor
// following the agent opens it.
func toolCallUpdate(c dialog.ToolCall) sdk.SessionUpdate {
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(c.CallID),
		Title:      c.Title,
		Kind:       toolKind(c.Kind),
		Status:     sdk.ToolCallStatusPending,
		Locations:  location(c),
		RawInput:   c.Args,
	}}
}

// toolResultUpdate ends a call: completed or failed, with what its
// confirmation or run attached, then what it displays.
func toolResultUpdate(r dialog.ToolResult, content []sdk.ToolCallContent) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if r.Status != dialog.StatusOK {
		status = sdk.ToolCallStatusFailed
	}
	if r.Display != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(r.Display)))
	}
	return sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(r.CallID),
		Status:     sdk.Ptr(status),
		Content:    content,
	}}
}

// toolKind is ACP's name for a tool's kind: the same word, for the kinds
// ACP has.
func toolKind(k dialog.Kind) sdk.ToolKind {
	switch k {
	case dialog.KindRead, dialog.KindSearch, dialog.KindEdit, dialog.KindExecute, dialog.KindFetch, dialog.KindThink:
		return sdk.ToolKind(k)
	}
	return sdk.ToolKindOther
}

// plan shows the model's to-do list (a write_todos call's) as the
// session's plan. ACP's entries are
// pending, in progress or completed; a cancelled or blocked to-do says so
// in its text.
func (sess *session) plan(ctx context.Context, todos []dialog.Todo) {
	entries := make([]sdk.PlanEntry, 0, len(todos))
	for _, t := range todos {
		e := sdk.PlanEntry{Content: t.Description, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
		switch t.Status {
		case "in_progress":
			e.Status = sdk.PlanEntryStatusInProgress
		case "completed":
			e.Status = sdk.PlanEntryStatusCompleted
		case "cancelled":
			e.Status, e.Content = sdk.PlanEntryStatusCompleted, "(cancelled) "+e.Content
		case "blocked":
			e.Content = "(blocked) " + e.Content
		}
		entries = append(entries, e)
	}
	sess.update(ctx, sdk.UpdatePlan(entries...))
}

// location is the file a call is about and the line in it, as Gemini
// CLI 0.61's toolLocations gives them (the tool's location); none for a call
// about no one file, as 0.61 sends for every other tool.
func location(c dialog.ToolCall) []sdk.ToolCallLocation {
	if c.Path == "" {
		return []sdk.ToolCallLocation{}
	}
	l := sdk.ToolCallLocation{Path: c.Path}
	if c.Line > 0 {
		l.Line = sdk.Ptr(c.Line)
	}
	return []sdk.ToolCallLocation{l}
}

// planFile sends the plan exit_plan_mode presents for approval as the
// session's plan: each of its list items an entry, or the whole text as
// one when it has none. A plan that cannot be read is not sent: the
// call's result says why.
func (sess *session) planFile(ctx context.Context, path string) {
	f, err := sess.ws.ReadFile(ctx, path, maxPlanShown)
	if err != nil {
		sess.log.Debug("reading the plan to show", zap.Error(err))
		return
	}
	var entries []sdk.PlanEntry
	for _, item := range planItems(string(f.Content)) {
		entries = append(entries, sdk.PlanEntry{Content: item, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
	}
	if len(entries) > 0 {
		sess.update(ctx, sdk.UpdatePlan(entries...))
	}
}

// maxPlanShown bounds the plan read to show it.
const maxPlanShown = 1 << 20

// planItems are a Markdown plan's list items ("- x", "* x", "1. x"),
// in order; the whole text, trimmed, when it has none.
func planItems(text string) []string {
	var items []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if item, ok := listItem(line); ok && item != "" {
			items = append(items, item)
		}
	}
	if len(items) == 0 && strings.TrimSpace(text) != "" {
		items = []string{strings.TrimSpace(text)}
	}
	return items
}

func listItem(line string) (string, bool) {
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(line, bullet); ok {
			return strings.TrimSpace(rest), true
		}
	}
	digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
	if digits > 0 {
		if rest, ok := strings.CutPrefix(line[digits:], ". "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// input is the agent's Input for a prompt's content blocks: text as typed,
// resource links as @path references (read as @path is), embedded text
// resources, images and audio as parts of their own.
func (sess *session) input(blocks []sdk.ContentBlock) (dialog.Input, error) {
	var text strings.Builder
	var in dialog.Input
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			ref, err := sess.reference(b.ResourceLink.Uri)
			if err != nil {
				return dialog.Input{}, fmt.Errorf("prompt block %d: %w", i, err)
			}
			if text.Len() > 0 && !strings.HasSuffix(text.String(), " ") {
				text.WriteByte(' ')
			}
			text.WriteString(ref + " ")
		case b.Resource != nil:
			part, err := embedded(b.Resource.Resource)
			if err != nil {
				return dialog.Input{}, fmt.Errorf("prompt block %d: %w", i, err)
			}
			in.Parts = append(in.Parts, part)
		case b.Image != nil:
			part, err := inline(b.Image.Data, b.Image.MimeType)
			if err != nil {
				return dialog.Input{}, fmt.Errorf("prompt block %d (image): %w", i, err)
			}
			in.Parts = append(in.Parts, part)
		case b.Audio != nil:
			part, err := inline(b.Audio.Data, b.Audio.MimeType)
			if err != nil {
				return dialog.Input{}, fmt.Errorf("prompt block %d (audio): %w", i, err)
			}
			in.Parts = append(in.Parts, part)
		default:
			return dialog.Input{}, fmt.Errorf("prompt block %d: unsupported content", i)
		}
	}
	in.Text = strings.TrimSpace(text.String())
	if in.Text == "" && len(in.Parts) == 0 {
		return dialog.Input{}, errors.New("the prompt is empty")
	}
	return in, nil
}

// reference is the @path a resource link names: relative to the cwd when
// inside it, spaces escaped as @paths escape them. A link that is not a
// file URI is kept as its URI, for the model to read.
func (sess *session) reference(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri, nil
	}
	p := filepath.Clean(u.Path)
	if rel, err := filepath.Rel(sess.cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		p = rel
	}
	return "@" + strings.ReplaceAll(p, " ", `\ `), nil
}

// embedded is an embedded resource as the model reads it.
func embedded(r sdk.EmbeddedResourceResource) (*genai.Part, error) {
	switch {
	case r.TextResourceContents != nil:
		t := r.TextResourceContents
		return genai.NewPartFromText(fmt.Sprintf("Content from %s:\n%s", t.Uri, t.Text)), nil
	case r.BlobResourceContents != nil:
		b := r.BlobResourceContents
		mime := "application/octet-stream"
		if b.MimeType != nil {
			mime = *b.MimeType
		}
		return inline(b.Blob, mime)
	}
	return nil, errors.New("an embedded resource needs text or a blob")
}

func inline(data, mime string) (*genai.Part, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("data is not base64: %w", err)
	}
	if mime == "" {
		return nil, errors.New("mimeType is required")
	}
	return genai.NewPartFromBytes(raw, mime), nil
}
