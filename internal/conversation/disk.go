package conversation

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// LandRevertOnDisk lands one file of a revert on disk, for the
// views with no editor to land it in (ACP without the client's
// file system, headless): written back (tools.LandOnDisk,
// which checks that disk still holds what the revert was made from), or
// deleted, after the same check, when the agent had created it.
func LandRevertOnDisk(ctx context.Context, c dialog.RevertChange) (dialog.Decision, error) {
	if !c.Remove {
		return tools.LandOnDisk(ctx, c.FileChange)
	}
	if err := ctx.Err(); err != nil {
		return dialog.Decision{}, err
	}
	fi, err := os.Lstat(c.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dialog.Decision{Outcome: dialog.Applied}, nil
	case err != nil:
		return dialog.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	case !fi.Mode().IsRegular():
		return dialog.Decision{Outcome: dialog.Stale, Reason: fmt.Sprintf("%s is no longer a regular file", c.Path)}, nil
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return dialog.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	}
	if strings.TrimPrefix(string(data), "\ufeff") != c.Before {
		return dialog.Decision{Outcome: dialog.Stale, Reason: "the file changed on disk after the revert was prepared"}, nil
	}
	if err := os.Remove(c.Path); err != nil {
		return dialog.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	}
	return dialog.Decision{Outcome: dialog.Applied}, nil
}

// ValidSessionID reports whether id could name a saved session, for a
// front end to refuse a garbage id before it builds anything.
func ValidSessionID(id string) bool { return sessionstore.ValidateID(id) == nil }

// StateDir is where gemini-ls keeps what it writes for itself (saved
// sessions, transcripts): $XDG_STATE_HOME/gemini-ls, else
// ~/.local/state/gemini-ls; "" when neither is set.
func StateDir(getenv func(string) string) string {
	if dir := sessionstore.DefaultDir(getenv); dir != "" {
		return filepath.Dir(dir)
	}
	return ""
}
