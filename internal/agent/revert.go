package agent

// Reverting the agent's file changes since a prompt, from the journal.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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
func (s *Session) revert(ctx context.Context, port dialog.Port, prompt int, exchanges []sessionstore.Exchange) ([]dialog.FileRevert, error) {
	ps := plans(exchanges)
	if len(ps) == 0 {
		return nil, nil
	}
	ws := s.agent.cfg.Workspace
	if ws == nil {
		return nil, errors.New("reverting the agent's changes: the session has no workspace")
	}
	out := make([]dialog.FileRevert, len(ps))
	var changes []dialog.RevertChange
	var landed []int // out's index of each change
	for k, p := range ps {
		out[k] = dialog.FileRevert{Path: p.path}
		change, outcome, reason, err := s.revertChange(ctx, port, ws, prompt, p)
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
	if err := s.landFiles(ctx, port, title, changes, landed, out); err != nil {
		return nil, fmt.Errorf("reverting the agent's changes: %w", err)
	}
	return out, nil
}

// landFiles lands changes as one through the door and records
// each one's outcome in out, at its index in landed.
func (s *Session) landFiles(ctx context.Context, port dialog.Port, title string, changes []dialog.RevertChange, landed []int, out []dialog.FileRevert) error {
	decisions, err := s.landAll(ctx, port, title, changes)
	if errors.Is(err, errNoFilesLander) {
		for _, k := range landed {
			out[k].Outcome, out[k].Reason = dialog.NotReverted, err.Error()
		}
		return nil
	}
	if err != nil {
		return err
	}
	for j, k := range landed {
		d := dialog.Decision{Outcome: dialog.Declined, Reason: "the front end did not say"}
		if j < len(decisions) {
			d = decisions[j]
		}
		if d.Outcome == dialog.Applied {
			out[k].Outcome = dialog.Reverted
			continue
		}
		out[k].Outcome, out[k].Reason = dialog.NotReverted, cmp.Or(d.Reason, string(d.Outcome))
	}
	return nil
}

// revertChange is p's revert from what the file holds now, or, when
// there is none to land, the file's outcome and why.
func (s *Session) revertChange(ctx context.Context, port dialog.Port, ws *workspace.Workspace, prompt int, p *revertPlan) (dialog.RevertChange, dialog.RevertOutcome, string, error) {
	if p.unjournaled != "" {
		return dialog.RevertChange{}, dialog.NotReverted, "its change was not journaled: " + p.unjournaled, nil
	}
	now, err := ws.PrepareChange(ctx, p.path, "")
	if err != nil {
		if ctx.Err() != nil {
			return dialog.RevertChange{}, "", "", ctx.Err()
		}
		return dialog.RevertChange{}, dialog.NotReverted, fmt.Sprintf("reading it: %v", err), nil
	}
	current := fileBytes(now.HadBOM, now.Before)
	switch {
	case !p.existed && !now.Exists, p.existed && now.Exists && bytes.Equal(current, p.target):
		return dialog.RevertChange{}, dialog.Unchanged, "", nil
	case !now.Exists || !bytes.Equal(current, p.left):
		revert, err := s.askAboutConflict(ctx, port, prompt, p.path)
		if err != nil || !revert {
			reason := "it was changed after the agent's last change, and the user chose to keep it"
			if err != nil {
				if ctx.Err() != nil {
					return dialog.RevertChange{}, "", "", ctx.Err()
				}
				reason = fmt.Sprintf("it was changed after the agent's last change, and nobody could be asked whether to revert it anyway (%v)", err)
			}
			return dialog.RevertChange{}, dialog.Conflict, reason, nil
		}
	}
	target, hasBOM := strings.CutPrefix(string(p.target), bom)
	change := now
	change.After, change.BOM = target, hasBOM
	return dialog.RevertChange{FileChange: change, Remove: !p.existed}, "", "", nil
}

// askAboutConflict asks the user whether to revert path anyway.
func (s *Session) askAboutConflict(ctx context.Context, port dialog.Port, prompt int, path string) (bool, error) {
	outcome, err := s.ask(ctx, port, dialog.ConfirmRequest{
		Kind:  dialog.ConfirmRewind,
		Title: fmt.Sprintf("Revert %s anyway?", path),
		Details: fmt.Sprintf("%s was changed after the agent last changed it. Reverting it to what it held before prompt %d discards those changes too; "+
			"skipping it keeps the file as it is.", path, prompt),
	})
	if err != nil {
		return false, err
	}
	return outcome == dialog.ProceedOnce || outcome == dialog.ProceedAlways, nil
}

// forgetReverted drops, from the exchanges from i on, the journal of
// the files reverted: they hold what they held before, and a later
// rewind has nothing of theirs to take back.
func (s *Session) forgetReverted(i int, files []dialog.FileRevert) {
	reverted := map[string]bool{}
	for _, f := range files {
		if f.Outcome == dialog.Reverted || f.Outcome == dialog.Unchanged {
			reverted[f.Path] = true
		}
	}
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	for k := i; k < len(s.exchanges); k++ {
		s.exchanges[k].Files = slices.DeleteFunc(slices.Clone(s.exchanges[k].Files), func(f sessionstore.FileEdit) bool { return reverted[f.Path] })
	}
}
