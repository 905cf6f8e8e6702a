package agent

// Restoring the workspace's files to a checkpoint's snapshot.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// FileTarget is what a restore puts one file back to: Content, or no
// file at all when !Exists (it was created after the snapshot).
type FileTarget struct {
	Path    string
	Exists  bool
	Content []byte
	// Executable: the file was executable (git's mode 100755).
	Executable bool
	// Skip, when set, says why the file cannot be restored; it is
	// reported as not restored.
	Skip string
}

// RestoreFiles puts the files back to targets, landed through the
// port's LandFiles as one change the user previews (titled
// title), as a rewind's revert is: deleted files are recreated, files
// created since are removed. Once the landing went through (the user
// did not decline it), each target's file on disk gets its executable
// bit back, the one mode git keeps; one that cannot is reported in its
// ModeNotSet. It reports each file's outcome, in order. It waits for a
// running prompt (or for ctx).
func (s *Session) RestoreFiles(ctx context.Context, title string, targets []FileTarget, port dialog.Port) ([]dialog.FileRevert, error) {
	if err := s.hold(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	ws := s.agent.cfg.Workspace
	if ws == nil {
		return nil, errors.New("restoring files: the session has no workspace")
	}
	out := make([]dialog.FileRevert, len(targets))
	var changes []dialog.RevertChange
	var landed []int // out's index of each change
	for k, target := range targets {
		out[k] = dialog.FileRevert{Path: target.Path}
		if target.Skip != "" {
			out[k].Outcome, out[k].Reason = dialog.NotReverted, target.Skip
			continue
		}
		now, err := ws.PrepareChange(ctx, target.Path, "")
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[k].Outcome, out[k].Reason = dialog.NotReverted, fmt.Sprintf("reading it: %v", err)
			continue
		}
		if !target.Exists && !now.Exists || target.Exists && now.Exists && bytes.Equal(fileBytes(now.HadBOM, now.Before), target.Content) {
			out[k].Outcome = dialog.Unchanged
			continue
		}
		after, hasBOM := strings.CutPrefix(string(target.Content), bom)
		change := now
		change.After, change.BOM = after, hasBOM
		changes = append(changes, dialog.RevertChange{FileChange: change, Remove: !target.Exists})
		landed = append(landed, k)
	}
	if len(changes) > 0 {
		if err := s.landFiles(ctx, port, title, changes, landed, out); err != nil {
			return nil, fmt.Errorf("restoring files: %w", err)
		}
		if !slices.ContainsFunc(landed, func(k int) bool { return out[k].Outcome == dialog.Reverted }) {
			return out, nil // declined: nothing more is put back
		}
	}
	restoreModes(ws, targets, out)
	return out, nil
}

// restoreModes gives each file restored, or already as it was, the
// executable bit its target has, on disk, where the landing put it.
func restoreModes(ws *workspace.Workspace, targets []FileTarget, out []dialog.FileRevert) {
	for k, target := range targets {
		if !target.Exists || out[k].Outcome != dialog.Reverted && out[k].Outcome != dialog.Unchanged {
			continue
		}
		changed, err := setExecutable(ws, target.Path, target.Executable)
		switch {
		case err != nil:
			out[k].ModeNotSet = err.Error()
		case changed:
			out[k].Outcome = dialog.Reverted // its mode was all that differed
		}
	}
}

// setExecutable makes the regular file at path executable, by whoever
// may read it, or not executable at all, as git checks a file out; it
// reports whether the mode changed. The workspace changes it through a
// descriptor opened beneath the root, never by name.
func setExecutable(ws *workspace.Workspace, path string, executable bool) (bool, error) {
	if runtime.GOOS == "windows" {
		return false, nil // no executable bit to set
	}
	changed, err := ws.SetMode(path, func(perm fs.FileMode) fs.FileMode {
		want := perm &^ 0o111
		if executable {
			want |= (perm & 0o444) >> 2
		}
		return want
	})
	switch {
	case errors.Is(err, fs.ErrNotExist) && !executable:
		return false, nil // when it reaches disk, it will not be executable
	case errors.Is(err, fs.ErrNotExist):
		return false, errors.New("the file is not on disk (an editor may not have saved it yet)")
	}
	return changed, err
}
