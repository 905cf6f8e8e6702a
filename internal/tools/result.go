package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Proposal is a file change an edit call proposes. The agent, not the
// tool, decides whether it lands without asking; the front end presents
// the question when it must and lands what was allowed; Settle turns what
// became of the change into the call's result.
type Proposal struct {
	Change workspace.FileChange
	// name is the file as the user's display names it, and applied what
	// the model is told when the change went through as proposed.
	name, applied string
	// hidden: read_file would refuse the file (ignored, or in .git), so
	// the model is never told what it holds (a user's version of it, or
	// what it changed to meanwhile); the user's display still shows it.
	hidden bool
}

// propose returns the result of an edit call that proposes change;
// hidden as Proposal.hidden.
func propose(ws *workspace.Workspace, change workspace.FileChange, applied string, hidden bool) (Result, error) {
	return Result{Proposal: &Proposal{Change: change, name: ws.Display(change.Path), applied: applied, hidden: hidden}}, nil
}

// hiddenContent is what the model is told in place of a hidden file's text.
const hiddenContent = "its content is not shown: it is ignored by configured ignore patterns"

// Settle is the call's result once decision says what became of the change.
func (p *Proposal) Settle(decision dialog.Decision) (Result, error) {
	change, name, applied := p.Change, p.name, p.applied
	var r Result
	switch decision.Outcome {
	case dialog.Applied:
		r = Result{Output: applied, Display: diffDisplay(name, change.Before, change.After)}
		if decision.Content != "" && toLF(decision.Content) == toLF(change.After)+"\n" {
			// The only difference an editor may make to an applied change.
			r.Output += " The editor added a line break at the end of the file."
		}
	case dialog.Modified:
		r = modified(change, name, decision.Content, p.hidden)
	case dialog.Declined, dialog.Refused:
		// Refused is not the user's doing: the front end may have had
		// nobody to ask, and its reason says how to allow edits.
		reason := strings.TrimRight(strings.TrimSpace(decision.Reason), ".")
		switch {
		case reason != "":
		case decision.Outcome == dialog.Refused:
			reason = "it was refused without asking the user"
		default:
			reason = "the user declined it"
		}
		msg := "This change was not applied: " + reason + ". The file was not modified."
		r = Result{Error: msg, Status: dialog.StatusRejected, Display: "Not applied: " + reason + ".\n\n" + diffDisplay(name, change.Before, change.After)}
	case dialog.Stale:
		// Not "nothing was applied": an editor may have applied the edit
		// at positions that no longer fit. What the file holds is the truth.
		msg := fmt.Sprintf("The file %s changed before this change could be applied, so it did not land as proposed", change.Path)
		if reason := strings.TrimRight(strings.TrimSpace(decision.Reason), "."); reason != "" {
			msg += " (" + reason + ")"
		}
		if p.hidden {
			msg += "; " + hiddenContent + "."
		} else if decision.Content != "" {
			msg += ". The file now contains:\n" + toLF(decision.Content)
		} else {
			msg += ". Read the file again and retry."
		}
		r = failure(msg)
	default:
		return Result{}, fmt.Errorf("proposing change to %s: unknown outcome %q", change.Path, decision.Outcome)
	}
	return r, nil
}

// modified is the result of a change the user took after changing it
// (content is what the file then holds): in part, when their review
// took some of its separate changes and dropped the others, which the
// model and the user are told with the count; otherwise with edits of
// their own. hidden as Proposal.hidden.
func modified(change workspace.FileChange, name, content string, hidden bool) Result {
	what := "The user modified your proposed change before accepting it."
	r := Result{Outcome: "accepted with your changes"}
	if taken, total, part := workspace.Taken(change.Before, change.After, content); part {
		what = fmt.Sprintf("The user accepted %d of the %d separate changes you proposed and rejected the others.", taken, total)
		r.Outcome = fmt.Sprintf("accepted in part: %d of %d changes", taken, total)
	}
	r.Display = strings.ToUpper(r.Outcome[:1]) + r.Outcome[1:] + ".\n\n" + diffDisplay(name, change.Before, content)
	if hidden {
		r.Output = fmt.Sprintf("%s The file %s is ignored by configured ignore patterns, so what it now contains is not shown.", what, change.Path)
		return r
	}
	r.Output = fmt.Sprintf("%s The file %s now contains:\n%s", what, change.Path, toLF(content))
	return r
}

// diffDisplay is a change shown to the user as a fenced unified diff.
func diffDisplay(name, before, after string) string {
	return dialog.Fence("diff", workspace.UnifiedDiff(name, before, after))
}

// failure is an expected failure of a call, told to the model as an error.
func failure(msg string) Result {
	return Result{Error: msg, Status: dialog.StatusError, Display: msg}
}

// FilesProposal is an edit call's change of several files, proposed and
// confirmed as one (rename_symbol's): the agent has the front end land
// them together (dialog.LandFilesRequest), and Settle tells the model
// what became of each.
type FilesProposal struct {
	// Title says what the change is: "Rename Greet to Hello".
	Title   string
	Changes []workspace.FileChange
	// counts are the edits in each change, names each file as the user's
	// display names it, source who proposed the change, caveat what the
	// model is told of its worth besides (codeintel.Answer.Caveat).
	counts []int
	names  []string
	source string
	caveat string
}

// Settle is the call's result once decisions, one per change in order,
// say what became of them.
func (p *FilesProposal) Settle(decisions []dialog.Decision) (Result, error) {
	if len(decisions) != len(p.Changes) {
		return Result{}, fmt.Errorf("%s: %d outcomes for %d files", p.Title, len(decisions), len(p.Changes))
	}
	var landed, notLanded, display []string
	edits, allRefused := 0, true
	var reasons []string
	for i, d := range decisions {
		ch, name := p.Changes[i], p.names[i]
		switch d.Outcome {
		case dialog.Applied:
			edits += p.counts[i]
			landed = append(landed, fmt.Sprintf("%s (%d %s)", name, p.counts[i], plural(p.counts[i], "edit", "edits")))
			display = append(display, diffDisplay(name, ch.Before, ch.After))
			allRefused = false
		case dialog.Modified:
			landed = append(landed, fmt.Sprintf("%s (changed by the user before accepting; it now contains:\n%s)", name, toLF(d.Content)))
			display = append(display, diffDisplay(name, ch.Before, d.Content))
			allRefused = false
		case dialog.Declined, dialog.Refused, dialog.Stale:
			reason := strings.TrimRight(strings.TrimSpace(d.Reason), ".")
			switch {
			case reason != "":
			case d.Outcome == dialog.Stale:
				reason = "it changed before the change could be applied"
			case d.Outcome == dialog.Refused:
				reason = "it was refused without asking the user"
			default:
				reason = "the user declined it"
			}
			if d.Outcome == dialog.Stale {
				allRefused = false
			}
			if !slices.Contains(reasons, reason) {
				reasons = append(reasons, reason)
			}
			notLanded = append(notLanded, fmt.Sprintf("%s (%s)", name, reason))
		default:
			return Result{}, fmt.Errorf("%s: unknown outcome %q for %s", p.Title, d.Outcome, name)
		}
	}
	if len(landed) == 0 {
		msg := fmt.Sprintf("%s was not applied: %s. No file was modified.", p.Title, strings.Join(reasons, "; "))
		status := dialog.StatusError
		if allRefused {
			status = dialog.StatusRejected
		}
		return Result{Error: msg, Status: status, Display: "Not applied: " + strings.Join(reasons, "; ") + "."}, nil
	}
	out := fmt.Sprintf("%s (proposed by %s): %d %s in %d %s changed: %s.", p.Title, p.source, edits, plural(edits, "edit", "edits"), len(landed), plural(len(landed), "file", "files"), strings.Join(landed, ", "))
	if len(notLanded) > 0 {
		out += fmt.Sprintf("\nNOT changed, so the rename is incomplete and the code may not build: %s. Read those files and finish the rename, or revert it.", strings.Join(notLanded, ", "))
	}
	if p.caveat != "" {
		out += "\n" + p.caveat
	}
	return Result{Output: out, Display: strings.Join(display, "\n")}, nil
}
