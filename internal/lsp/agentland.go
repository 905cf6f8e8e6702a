package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// How an agent's work lands in the user's tree.
const (
	// landReview: one workspace/applyEdit the user previews and accepts.
	landReview = "review"
	// landMerge: git merges the agent's branch, at the user's request.
	landMerge = "merge"
)

type landAgentParams struct {
	agentRef
	How string `json:"how,omitempty"`
}

// landAgentResult is gemini/landAgent's result.
type landAgentResult struct {
	// Applied says the work reached the user's tree: the edit was
	// accepted (some of its files at least), or git merged the branch.
	Applied bool `json:"applied"`
	// Files are the files of the work that reached it.
	Files     []agentFile    `json:"files"`
	Conflicts []landConflict `json:"conflicts"`
	Left      []landLeftOut  `json:"left,omitempty"`
	Message   string         `json:"message"`
}

// landConflict is a hunk of the agent's left out because the user had
// changed the same lines: both sides.
type landConflict struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Yours  string `json:"yours"`
	Theirs string `json:"theirs"`
}

// landLeftOut is a file of the work that did not land, and why.
type landLeftOut struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// landAgent answers gemini/landAgent.
func (s *Server) landAgent(ctx context.Context, p landAgentParams) (landAgentResult, error) {
	a, err := s.findAgent(ctx, p.agentRef)
	if err != nil {
		return landAgentResult{}, err
	}
	if err := busyAgent(a, "land its work"); err != nil {
		return landAgentResult{}, err
	}
	switch p.How {
	case "", landReview:
		return s.reviewAgent(ctx, a)
	case landMerge:
		return s.mergeAgent(ctx, a)
	}
	return landAgentResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: how is %q or %q, not %q", landReview, landMerge, p.How)
}

// landing is an agent's work as one edit of the user's tree: the files
// changed, and what was left out.
type landing struct {
	changes   []dialog.RevertChange
	files     []agentFile // of changes, in order
	conflicts []landConflict
	left      []landLeftOut
}

// reviewAgent lands the agent's work as one workspace/applyEdit the
// user previews: each file's change made against what the user's tree
// holds now (open documents as the editor holds them), the agent's
// hunks the user also changed left out as conflicts.
func (s *Server) reviewAgent(ctx context.Context, a fleet.Agent) (landAgentResult, error) {
	ws := s.agentState.workspace()
	changes, err := a.Worktree.Work(ctx, workspace.MaxFileSize)
	if err != nil {
		return landAgentResult{}, requestFailed(fmt.Errorf("reading the agent's work: %w", err))
	}
	l := s.landingOf(ctx, ws, a.Worktree, changes)
	res := landAgentResult{Files: []agentFile{}, Conflicts: l.conflicts, Left: l.left}
	if res.Conflicts == nil {
		res.Conflicts = []landConflict{}
	}
	if len(l.changes) > 0 {
		decisions, err := presenter{s}.LandFiles(ctx, dialog.LandFilesRequest{
			Title:   fmt.Sprintf("land the agent %q: %s", a.Worktree.Name, a.Title),
			Changes: l.changes,
			Landing: true,
		})
		if err != nil {
			return landAgentResult{}, requestFailed(fmt.Errorf("landing the agent's work: %w", err))
		}
		for i, d := range decisions {
			if d.Outcome == dialog.Applied {
				res.Files = append(res.Files, l.files[i])
				continue
			}
			res.Left = append(res.Left, landLeftOut{Path: l.changes[i].Path, Reason: d.Reason})
		}
	}
	res.Applied = len(res.Files) > 0
	res.Message = landMessage(a, res, len(changes))
	return res, nil
}

// landingOf makes the edit of the user's tree that brings changes, the
// agent's work, into it.
func (s *Server) landingOf(ctx context.Context, ws *workspace.Workspace, wt worktree.Worktree, changes []worktree.Change) landing {
	var l landing
	for _, c := range changes {
		path := filepath.Join(wt.Project, filepath.FromSlash(c.Path))
		fc, err := ws.PrepareChange(ctx, path, "")
		if err != nil {
			l.left = append(l.left, landLeftOut{Path: path, Reason: err.Error()})
			continue
		}
		yours := fc.Before
		conflict := func(line int, yoursText, theirs string) {
			l.conflicts = append(l.conflicts, landConflict{Path: path, Line: line, Yours: yoursText, Theirs: theirs})
		}
		rc := dialog.RevertChange{FileChange: fc}
		switch {
		case c.Status == worktree.Deleted && !fc.Exists:
			continue // the user deleted it too
		case c.Status == worktree.Deleted && yours == c.Base:
			rc.Remove = true
		case c.Status == worktree.Deleted:
			conflict(1, yours, "")
			continue
		case !fc.Exists && c.Status == worktree.Added:
			rc.After = c.Now
		case !fc.Exists:
			conflict(1, "", c.Now) // the user deleted what the agent changed
			continue
		case c.Status == worktree.Added:
			if yours != c.Now {
				conflict(1, yours, c.Now) // the user made a file there too
			}
			continue
		default:
			merged, conflicts := fleet.Merge(c.Base, c.Now, yours)
			for _, x := range conflicts {
				conflict(x.Line, x.Yours, x.Theirs)
			}
			if merged == yours {
				continue
			}
			rc.After = merged
		}
		added, removed := workspace.DiffLines(yours, rc.After).Stat()
		status := string(c.Status)
		if rc.Remove {
			added, removed = 0, strings.Count(yours, "\n")
		}
		l.changes = append(l.changes, rc)
		l.files = append(l.files, agentFile{Path: c.Path, Status: status, Added: added, Removed: removed})
	}
	return l
}

// landMessage tells the user what landing did, in a sentence or two.
func landMessage(a fleet.Agent, res landAgentResult, work int) string {
	var b strings.Builder
	switch {
	case work == 0:
		fmt.Fprintf(&b, "The agent %q has changed nothing to land.", a.Worktree.Name)
	case res.Applied:
		fmt.Fprintf(&b, "Landed %s from the agent %q.", plural(len(res.Files), "file"), a.Worktree.Name)
	default:
		fmt.Fprintf(&b, "Nothing of the agent %q landed.", a.Worktree.Name)
	}
	if n := len(res.Conflicts); n > 0 {
		first := res.Conflicts[0]
		fmt.Fprintf(&b, " %s left out, where you had changed the same lines (first: %s:%d); your text stands, and the agent's is on the branch %s.",
			plural(n, "conflict"), filepath.Base(first.Path), first.Line, a.Worktree.Branch)
	}
	for _, l := range res.Left {
		fmt.Fprintf(&b, " %s did not land: %s.", filepath.Base(l.Path), l.Reason)
	}
	return b.String()
}

// plural is n things, in words.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// mergeAgent commits what the agent's worktree holds on its branch and
// merges the branch into the user's checked-out branch with git, as the
// user asked; a merge git stops is aborted, and the user told why.
func (s *Server) mergeAgent(ctx context.Context, a fleet.Agent) (landAgentResult, error) {
	wt := a.Worktree
	files := s.agentFiles(ctx, wt.Path)
	title := a.Title
	if title == "" {
		title = wt.Name
	}
	if err := wt.Commit(ctx, "gemini-ls agent "+wt.Name+": "+title); err != nil {
		return landAgentResult{}, requestFailed(fmt.Errorf("committing the agent's work on %s: %w", wt.Branch, err))
	}
	if err := wt.MergeInto(ctx, fmt.Sprintf("Merge the gemini-ls agent %s: %s", wt.Name, title)); err != nil {
		if errors.Is(err, context.Canceled) {
			return landAgentResult{}, err
		}
		return landAgentResult{}, requestFailed(fmt.Errorf("merging the agent's branch; your tree is as it was: %w", err))
	}
	res := landAgentResult{Applied: true, Files: agentFilesOf(files), Conflicts: []landConflict{}}
	res.Message = fmt.Sprintf("Merged the branch %s (%s) into your branch.", wt.Branch, plural(len(files), "file"))
	return res, nil
}
