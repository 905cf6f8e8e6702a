package conversation

import (
	"context"
	"errors"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// LandOnDisk writes an allowed change to disk, for the views with no
// editor to land it in (ACP without the client's file system, headless):
// applied, or stale when disk no longer holds what the change was made
// from. It is the tools' (tools.LandOnDisk), which a front end reaches
// only through the host.
func LandOnDisk(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	return tools.LandOnDisk(ctx, change)
}

// LandRevertOnDisk lands one file of a revert on disk, for the
// views with no editor to land it in (ACP without the client's
// file system, headless): written back (LandOnDisk,
// which checks that disk still holds what the revert was made from), or
// deleted, after the same check, when the agent had created it.
func LandRevertOnDisk(ctx context.Context, c dialog.RevertChange) (dialog.Decision, error) {
	if !c.Remove {
		return LandOnDisk(ctx, c.FileChange)
	}
	if err := ctx.Err(); err != nil {
		return dialog.Decision{}, err
	}
	err := workspace.RemoveFile(ctx, c.FileChange)
	switch {
	case errors.Is(err, workspace.ErrStale):
		return dialog.Decision{Outcome: dialog.Stale, Reason: err.Error()}, nil
	case err != nil:
		return dialog.Decision{}, err
	}
	return dialog.Decision{Outcome: dialog.Applied}, nil
}

// ValidSessionID reports whether id could name a saved session, for a
// front end to refuse a garbage id before it builds anything.
func ValidSessionID(id string) bool { return sessionstore.ValidateID(id) == nil }

// StateDir is where gemini-ls keeps what it writes for itself
// (sessionstore.StateDir), for the front ends.
func StateDir(getenv func(string) string) string { return sessionstore.StateDir(getenv) }
