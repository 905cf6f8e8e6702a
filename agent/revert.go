package agent

// Reverting the agent's file changes since a prompt, from the journal.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// RevertChange is one file of a revert: its FileChange takes the file
// from what it holds now (Before; Exists) back to After, unless Remove
// says the agent created it, and the revert deletes it.
type RevertChange struct {
	workspace.FileChange
	Remove bool
}

// LandFilesRequest hands a front end a revert to land as one change,
// previewed and confirmed once.
type LandFilesRequest struct {
	SessionID string
	// Title says what the change is, for the question and the preview.
	Title   string
	Changes []RevertChange
}

// FilesLander is a ChangeLander that lands several changes as one (a
// rewind's revert of the agent's changes): it presents them all, asks
// the user once, lands what was allowed and reports each change's
// outcome, in order. The user asked for the revert, so a front end with
// nobody to ask (headless) lands it.
type FilesLander interface {
	LandFiles(ctx context.Context, req LandFilesRequest) ([]tools.Decision, error)
}

// FileRevert is what became of one file in a rewind.
type FileRevert struct {
	Path    string
	Outcome RevertOutcome
	// Reason says why it was not reverted.
	Reason string
	// ModeNotSet says why a restored file's executable bit could not be
	// put back (RestoreFiles); "" when it was, or needed none.
	ModeNotSet string
}

// RevertOutcome is the fate of one file of a revert.
type RevertOutcome string

const (
	Reverted RevertOutcome = "reverted"
	// NotReverted: the user declined, the file could not be written, or
	// its change was never journaled; Reason says which.
	NotReverted RevertOutcome = "not_reverted"
	// Conflict: the file changed since the agent last changed it, and
	// the user chose (or nobody could be asked) to keep it.
	Conflict RevertOutcome = "conflict"
	// Unchanged: it already holds what it held before.
	Unchanged RevertOutcome = "unchanged"
)

// revertPlan is one file's revert: back to what it held before the
// agent's first change at or after the rewound prompt (target; existed),
// from what the agent left (left).
type revertPlan struct {
	path        string
	existed     bool
	target      []byte
	left        []byte
	unjournaled string
}

// plans is each file the exchanges changed, in the order first changed.
func plans(exchanges []sessionstore.Exchange) []*revertPlan {
	var out []*revertPlan
	byPath := map[string]*revertPlan{}
	for _, ex := range exchanges {
		for _, f := range ex.Files {
			p, ok := byPath[f.Path]
			if !ok {
				p = &revertPlan{path: f.Path, existed: f.Existed, target: f.Before}
				byPath[f.Path] = p
				out = append(out, p)
			}
			p.left = f.After
			if f.Unjournaled != "" && p.unjournaled == "" {
				p.unjournaled = f.Unjournaled
			}
		}
	}
	return out
}

// revert takes the files exchanges changed back, asking about conflicts
// first, and landing the rest as one change.
func (s *Session) revert(ctx context.Context, prompt int, exchanges []sessionstore.Exchange) ([]FileRevert, error) {
	ps := plans(exchanges)
	if len(ps) == 0 {
		return nil, nil
	}
	ws := s.agent.cfg.Workspace
	if ws == nil {
		return nil, errors.New("reverting the agent's changes: the session has no workspace")
	}
	out := make([]FileRevert, len(ps))
	var changes []RevertChange
	var landed []int // out's index of each change
	for k, p := range ps {
		out[k] = FileRevert{Path: p.path}
		change, outcome, reason, err := s.revertChange(ctx, ws, prompt, p)
		if err != nil {
			return nil, err
		}
		if outcome != "" {
			out[k].Outcome, out[k].Reason = outcome, reason
			continue
		}
		changes = append(changes, change)
		landed = append(landed, k)
	}
	if len(changes) == 0 {
		return out, nil
	}
	title := fmt.Sprintf("Revert the agent's changes since prompt %d (%d %s)", prompt, len(changes), plural(len(changes), "file", "files"))
	if err := s.landFiles(ctx, title, changes, landed, out); err != nil {
		return nil, fmt.Errorf("reverting the agent's changes: %w", err)
	}
	return out, nil
}

// landFiles lands changes as one through the door and records
// each one's outcome in out, at its index in landed.
func (s *Session) landFiles(ctx context.Context, title string, changes []RevertChange, landed []int, out []FileRevert) error {
	decisions, err := s.landAll(ctx, title, changes)
	if errors.Is(err, errNoFilesLander) {
		for _, k := range landed {
			out[k].Outcome, out[k].Reason = NotReverted, err.Error()
		}
		return nil
	}
	if err != nil {
		return err
	}
	for j, k := range landed {
		d := tools.Decision{Outcome: tools.Declined, Reason: "the front end did not say"}
		if j < len(decisions) {
			d = decisions[j]
		}
		if d.Outcome == tools.Applied {
			out[k].Outcome = Reverted
			continue
		}
		out[k].Outcome, out[k].Reason = NotReverted, cmp.Or(d.Reason, string(d.Outcome))
	}
	return nil
}

// revertChange is p's revert from what the file holds now, or, when
// there is none to land, the file's outcome and why.
func (s *Session) revertChange(ctx context.Context, ws *workspace.Workspace, prompt int, p *revertPlan) (RevertChange, RevertOutcome, string, error) {
	if p.unjournaled != "" {
		return RevertChange{}, NotReverted, "its change was not journaled: " + p.unjournaled, nil
	}
	now, err := ws.PrepareChange(ctx, p.path, "")
	if err != nil {
		if ctx.Err() != nil {
			return RevertChange{}, "", "", ctx.Err()
		}
		return RevertChange{}, NotReverted, fmt.Sprintf("reading it: %v", err), nil
	}
	current := fileBytes(now.HadBOM, now.Before)
	switch {
	case !p.existed && !now.Exists, p.existed && now.Exists && bytes.Equal(current, p.target):
		return RevertChange{}, Unchanged, "", nil
	case !now.Exists || !bytes.Equal(current, p.left):
		revert, err := s.askAboutConflict(ctx, prompt, p.path)
		if err != nil || !revert {
			reason := "it was changed after the agent's last change, and the user chose to keep it"
			if err != nil {
				if ctx.Err() != nil {
					return RevertChange{}, "", "", ctx.Err()
				}
				reason = fmt.Sprintf("it was changed after the agent's last change, and nobody could be asked whether to revert it anyway (%v)", err)
			}
			return RevertChange{}, Conflict, reason, nil
		}
	}
	target, hasBOM := strings.CutPrefix(string(p.target), bom)
	change := now
	change.After, change.BOM = target, hasBOM
	return RevertChange{FileChange: change, Remove: !p.existed}, "", "", nil
}

// askAboutConflict asks the user whether to revert path anyway.
func (s *Session) askAboutConflict(ctx context.Context, prompt int, path string) (bool, error) {
	outcome, err := s.ask(ctx, ConfirmRequest{
		Kind:  ConfirmRewind,
		Title: fmt.Sprintf("Revert %s anyway?", path),
		Details: fmt.Sprintf("%s was changed after the agent last changed it. Reverting it to what it held before prompt %d discards those changes too; "+
			"skipping it keeps the file as it is.", path, prompt),
	})
	if err != nil {
		return false, err
	}
	return outcome == ProceedOnce || outcome == ProceedAlways, nil
}

// forgetReverted drops, from the exchanges from i on, the journal of
// the files reverted: they hold what they held before, and a later
// rewind has nothing of theirs to take back.
func (s *Session) forgetReverted(i int, files []FileRevert) {
	reverted := map[string]bool{}
	for _, f := range files {
		if f.Outcome == Reverted || f.Outcome == Unchanged {
			reverted[f.Path] = true
		}
	}
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	for k := i; k < len(s.exchanges); k++ {
		s.exchanges[k].Files = slices.DeleteFunc(slices.Clone(s.exchanges[k].Files), func(f sessionstore.FileEdit) bool { return reverted[f.Path] })
	}
}

// LandRevertOnDisk lands one file of a revert on disk, for the front
// ends with no editor to land it in: written back (tools.LandOnDisk,
// which checks that disk still holds what the revert was made from), or
// deleted, after the same check, when the agent had created it.
func LandRevertOnDisk(ctx context.Context, c RevertChange) (tools.Decision, error) {
	if !c.Remove {
		return tools.LandOnDisk(ctx, c.FileChange)
	}
	if err := ctx.Err(); err != nil {
		return tools.Decision{}, err
	}
	fi, err := os.Lstat(c.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Decision{Outcome: tools.Applied}, nil
	case err != nil:
		return tools.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	case !fi.Mode().IsRegular():
		return tools.Decision{Outcome: tools.Stale, Reason: fmt.Sprintf("%s is no longer a regular file", c.Path)}, nil
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return tools.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	}
	if strings.TrimPrefix(string(data), bom) != c.Before {
		return tools.Decision{Outcome: tools.Stale, Reason: "the file changed on disk after the revert was prepared"}, nil
	}
	if err := os.Remove(c.Path); err != nil {
		return tools.Decision{}, fmt.Errorf("deleting %s: %w", c.Path, err)
	}
	return tools.Decision{Outcome: tools.Applied}, nil
}
