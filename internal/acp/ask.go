package acp

// Questions through session/request_permission.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// optionDecline (kind reject_once) declines a question. Its id cannot be
// a question option's, which are the options' own ids.
const optionDecline sdk.PermissionOptionId = "_decline"

// Ask puts a call's question to the user as a form where the client
// takes forms (elicit.go); else as a permission request about
// the call: the question is the call's content, each option a permission
// option (allow_once), and Decline. A permission request offers one
// option and no words of the user's own; the model is told so.
func (t *turn) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	sess, q := t.sess, req.Question
	if sess.srv.elicitsForms() {
		return sess.elicit(ctx, req)
	}
	if len(q.Options) == 0 {
		return dialog.Answer{}, fmt.Errorf("%w: this question needs an answer in the user's own words, which ACP's permission request cannot take", dialog.ErrCannotAsk)
	}
	options := make([]sdk.PermissionOption, 0, len(q.Options)+1)
	for _, o := range q.Options {
		options = append(options, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.ID), Name: o.Label, Kind: sdk.PermissionOptionKindAllowOnce})
	}
	options = append(options, sdk.PermissionOption{OptionId: optionDecline, Name: "Decline", Kind: sdk.PermissionOptionKindRejectOnce})
	title := q.Title
	if title == "" {
		title = q.Text
	}
	call := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(req.CallID),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Title:      sdk.Ptr(title),
		Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(questionText(q)))},
	}
	res, err := sess.srv.requestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(sess.id), ToolCall: call, Options: options})
	switch {
	case ctx.Err() != nil:
		return dialog.Answer{}, ctx.Err()
	case err != nil:
		return dialog.Answer{}, fmt.Errorf("session/request_permission: %s", clientError(err))
	case res.cancelled:
		// In ACP, "cancelled" says the prompt turn was cancelled (as in
		// sess.ask): the turn ends, the question is not declined.
		sess.log.Info("the client answered a question \"cancelled\": the turn is cancelled")
		sess.cancelTurn()
		if ctx.Err() != nil {
			return dialog.Answer{}, ctx.Err()
		}
		return dialog.Answer{}, errors.New("the editor answered session/request_permission \"cancelled\" (the prompt turn was cancelled)")
	case res.option == optionDecline:
		return dialog.Answer{Declined: true}, nil
	}
	i := slices.IndexFunc(q.Options, func(o dialog.Option) bool { return sdk.PermissionOptionId(o.ID) == res.option })
	if i < 0 {
		return dialog.Answer{}, fmt.Errorf("session/request_permission was answered with option %q, which was not offered", res.option)
	}
	return dialog.Answer{Chosen: []string{q.Options[i].ID}, Note: q.OneChoiceNote()}, nil
}

// questionText is the question and what each option means, as Markdown.
func questionText(q dialog.Question) string {
	var b strings.Builder
	b.WriteString(q.Text)
	if slices.ContainsFunc(q.Options, func(o dialog.Option) bool { return o.Description != "" }) {
		b.WriteString("\n")
	}
	for _, o := range q.Options {
		if o.Description != "" {
			fmt.Fprintf(&b, "\n- **%s**: %s", o.Label, o.Description)
		}
	}
	return b.String()
}
