package acp

// A rewind's revert, or an edit call's change across files: one
// permission request, then each file written.

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// LandFiles lands a rewind's revert: shown as a tool call of its own
// with every file's diff, asked about once with
// session/request_permission, then each file written as an edit is
// (through fs/write_text_file when the client declared it, else on
// disk). A file the agent created is deleted on disk: ACP has no way to
// delete through the client.
//
// An edit call's change across files (req.CallID set: a rename) is shown
// under that call, which the client already shows and whose result ends
// it: asked about, with every file's diff, only where req.Ask says so,
// as Land asks about one file's.
func (t *turn) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	if req.CallID != "" {
		return t.landCallFiles(ctx, req)
	}
	sess := t.sess
	id := sdk.ToolCallId(fmt.Sprintf("revert-%d", sess.reverts.Add(1)))
	diffs, locations := filesShown(req.Changes)
	sess.update(ctx, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: id, Title: req.Title, Kind: sdk.ToolKindEdit, Status: sdk.ToolCallStatusPending, Locations: locations,
	}})
	a, err := sess.ask(ctx, sdk.ToolCallUpdate{
		ToolCallId: id,
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Kind:       sdk.Ptr(sdk.ToolKindEdit),
		Title:      sdk.Ptr(req.Title),
		Locations:  locations,
		Content:    diffs,
	}, allowLabels{})
	out := make([]dialog.Decision, len(req.Changes))
	status := sdk.ToolCallStatusFailed
	defer func() {
		sess.update(ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: id, Status: sdk.Ptr(status), Content: diffs}})
	}()
	switch {
	case err != nil:
		return nil, err
	case a == rejected:
		for i := range out {
			out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: "the user rejected the revert"}
		}
		return out, nil
	}
	for i, c := range req.Changes {
		d, err := sess.landChange(ctx, c)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	status = sdk.ToolCallStatusCompleted
	return out, nil
}

// landCallFiles lands an edit call's changes of several files: asked
// about under the call's own id when req.Ask, then each file written as
// Land writes one, its diff attached to the call once it landed.
func (t *turn) landCallFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	sess := t.sess
	diffs, locations := filesShown(req.Changes)
	out := make([]dialog.Decision, len(req.Changes))
	if req.Ask {
		a, err := sess.ask(ctx, sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(req.CallID),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Kind:       sdk.Ptr(sdk.ToolKindEdit),
			Title:      sdk.Ptr(req.Title),
			Locations:  locations,
			Content:    diffs,
		}, allowLabels{})
		switch {
		case err != nil:
			return nil, err
		case a == rejected:
			for i := range out {
				out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: reasonRejected}
			}
			return out, nil
		}
	}
	for i, c := range req.Changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := sess.landChange(ctx, c)
		if err != nil {
			return nil, err
		}
		if d.Outcome == dialog.Applied {
			sess.attach(req.CallID, diffs[i])
		}
		out[i] = d
	}
	return out, nil
}

// filesShown are changes as a tool call shows them: each file's diff
// (a file to delete as emptied) and location.
func filesShown(changes []dialog.RevertChange) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var diffs []sdk.ToolCallContent
	var locations []sdk.ToolCallLocation
	for _, c := range changes {
		change := c.FileChange
		if c.Remove {
			change.After = ""
		}
		diffs = append(diffs, diffContent(change))
		locations = append(locations, sdk.ToolCallLocation{Path: c.Path})
	}
	return diffs, locations
}

// landChange lands one file of several: deleted on disk when the agent
// created it and a revert removes it (ACP has no way to delete through
// the client), else written as an edit is.
func (sess *session) landChange(ctx context.Context, c dialog.RevertChange) (dialog.Decision, error) {
	if c.Remove {
		return conversation.LandRevertOnDisk(ctx, c)
	}
	return sess.land(ctx, c.FileChange)
}
