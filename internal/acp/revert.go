package acp

// A rewind's revert: one permission request, then each file written.

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
func (t *turn) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	sess := t.sess
	id := sdk.ToolCallId(fmt.Sprintf("revert-%d", sess.reverts.Add(1)))
	var diffs []sdk.ToolCallContent
	var locations []sdk.ToolCallLocation
	for _, c := range req.Changes {
		change := c.FileChange
		if c.Remove {
			change.After = ""
		}
		diffs = append(diffs, diffContent(change))
		locations = append(locations, sdk.ToolCallLocation{Path: c.Path})
	}
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
		var d dialog.Decision
		if c.Remove {
			d, err = conversation.LandRevertOnDisk(ctx, c)
		} else {
			d, err = sess.land(ctx, c.FileChange)
		}
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	status = sdk.ToolCallStatusCompleted
	return out, nil
}
