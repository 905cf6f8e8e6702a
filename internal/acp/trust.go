package acp

// Folder trust (internal/conversation/trust.go): the first prompt of a session in
// a folder no rule decides asks whether to trust it through
// session/request_permission; a prompt after the folder's trust changed
// runs in the session's agent built anew.

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// AskTrust puts the trust question as a permission request about a call
// of its own, shown as the session's other questions are: its options
// the three answers, by the level each records, kinds telling a client
// that both trusts are for good and "Don't trust" a refusal for good.
func (t *turn) AskTrust(ctx context.Context, req dialog.TrustRequest) (string, error) {
	sess := t.sess
	id := sdk.ToolCallId(fmt.Sprintf("trust-%d", sess.asked.Add(1)))
	title := req.Title()
	sess.update(ctx, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: id, Title: title, Kind: sdk.ToolKindOther, Status: sdk.ToolCallStatusPending, Locations: []sdk.ToolCallLocation{{Path: req.Folder}},
	}})
	var options []sdk.PermissionOption
	for _, o := range dialog.TrustOptions() {
		kind := sdk.PermissionOptionKindAllowAlways
		if o.Level == settings.DoNotTrust {
			kind = sdk.PermissionOptionKindRejectAlways
		}
		options = append(options, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.Level), Name: o.Label, Kind: kind})
	}
	call := sdk.ToolCallUpdate{
		ToolCallId: id,
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Kind:       sdk.Ptr(sdk.ToolKindOther),
		Title:      sdk.Ptr(title),
		Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(req.Text()))},
		Locations:  []sdk.ToolCallLocation{{Path: req.Folder}},
	}
	res, err := sess.srv.requestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(sess.id), ToolCall: call, Options: options})
	level := ""
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case err != nil:
		err = fmt.Errorf("session/request_permission: %s", clientError(err))
	case res.cancelled:
		// In ACP, "cancelled" says the prompt turn was cancelled.
		sess.cancelTurn()
		err = fmt.Errorf("the editor answered session/request_permission \"cancelled\" (the prompt turn was cancelled)")
	default:
		if level = string(res.option); level != settings.TrustFolder && level != settings.TrustParent && level != settings.DoNotTrust {
			level, err = "", fmt.Errorf("session/request_permission was answered with option %q, which was not offered", res.option)
		}
	}
	status := sdk.ToolCallStatusCompleted
	if err != nil || level == "" {
		status = sdk.ToolCallStatusFailed
	}
	sess.update(ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: id, Status: sdk.Ptr(status)}})
	return level, err
}

// settleTrust readies the claim's prompt in for the folder's trust: the
// session's first prompt puts the trust question (Claim.AskTrust) through
// the prompt's turn t; when
// the trust differs from the agent's, the session's agent is built anew
// (Host.Rebuild) and the session continues in it, its client told of its
// commands, modes and mode anew.
func (sess *session) settleTrust(claim *conversation.Claim[*session], in dialog.Input, t *turn) {
	ctx := claim.Context()
	claim.AskTrust(in, t)
	b := sess.setup()
	if !b.Stale() {
		return
	}
	if err := sess.srv.host.Rebuild(ctx, b); err != nil {
		sess.log.Warn("the agent was not set up again for the folder's trust", zap.Error(err))
		return
	}
	if err := claim.Move(); err != nil {
		sess.log.Warn("the session did not move to the agent set up again", zap.Error(err))
		return
	}
	sess.mu.Lock()
	sess.live = claim.Live()
	sess.mu.Unlock()
	sess.log.Info("the folder's trust or the extensions changed: the session's agent was set up again", zap.Strings("untrusted", b.Untrusted()))
	sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
	sess.modeChanged(ctx)
	sess.announce()
}
