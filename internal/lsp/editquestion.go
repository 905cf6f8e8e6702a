package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A client that can only answer window/showMessageRequest (Helix, stock
// eglot, Neovim without our plugin) still shows the user what they
// approve: a short diff goes in the question; a longer one is written to
// a .diff file under the state directory, which a "Show diff" action opens
// (window/showDocument) before the question is asked again, or whose path
// the question names when the client cannot open documents.

// maxDiffLinesInQuestion bounds the diff put in a question: more does not
// fit a popup (Helix) or a minibuffer (Emacs).
const maxDiffLinesInQuestion = 20

const actionShowDiff = "Show diff"

// askToEdit asks whether to apply change (of the file named name, from
// base) and returns the action chosen, "" when dismissed. "Always Apply"
// is offered only where it would hold (canAlways).
func (s *Server) askToEdit(ctx context.Context, f clientFeatures, name, base, after, summary string, canAlways bool) (string, error) {
	diff := workspace.UnifiedDiff(name, base, after)
	// A CRLF file's carriage returns would move the cursor back in a
	// terminal's question (Neovim's prompt overwrote the line).
	hunks := strings.ReplaceAll(diffHunks(diff), "\r", "")
	question := "Gemini wants to edit " + summary
	actions := []string{actionApply}
	if canAlways {
		actions = append(actions, actionAlwaysApply)
	}
	if workspace.DiffLines(base, after).Changes() > 1 {
		actions = append(actions, actionEachChange)
	}
	actions = append(actions, actionReject)
	var diffPath string
	if n := strings.Count(hunks, "\n"); n <= maxDiffLinesInQuestion {
		question += ":\n" + strings.TrimSuffix(hunks, "\n")
	} else {
		path, err := s.writeDiff(name, diff)
		switch {
		case err != nil:
			s.log.Warn("writing the diff to show", zap.Error(err))
			question += fmt.Sprintf(" (a diff of %d lines)", n)
		case f.ShowDocument:
			diffPath = path
			question += fmt.Sprintf(" (a diff of %d lines: %s opens it)", n, actionShowDiff)
			actions = append(actions, actionShowDiff)
		default:
			question += fmt.Sprintf(" (a diff of %d lines, in %s)", n, path)
		}
	}
	for {
		action, err := s.showMessageRequest(ctx, protocol.MessageTypeInfo, question, actions...)
		if err != nil || action != actionShowDiff {
			return action, err
		}
		focus := true
		var res protocol.ShowDocumentResult
		if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.File(diffPath), TakeFocus: &focus}, &res); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			s.log.Info("window/showDocument of a diff", zap.Error(err))
		}
	}
}

// askEachChange asks about each separate change of the edit from base to
// after in turn, and returns base with the changes the user applied. A
// question dismissed rejects the whole edit (base): nothing lands that
// the user did not take.
func (s *Server) askEachChange(ctx context.Context, name, base, after string) (string, error) {
	d := workspace.DiffLines(base, after)
	n := d.Changes()
	take := make([]bool, n)
	for i := range n {
		one := d.Take(func(j int) bool { return j == i })
		hunk := strings.ReplaceAll(diffHunks(workspace.UnifiedDiff(name, base, one)), "\r", "")
		if lines := strings.Split(strings.TrimSuffix(hunk, "\n"), "\n"); len(lines) > maxDiffLinesInQuestion {
			hunk = strings.Join(lines[:maxDiffLinesInQuestion], "\n") + fmt.Sprintf("\n(%d more lines)", len(lines)-maxDiffLinesInQuestion)
		}
		question := fmt.Sprintf("Change %d of %d to %s, at line %d:\n%s", i+1, n, name, d.ChangeLine(i), strings.TrimSuffix(hunk, "\n"))
		action, err := s.showMessageRequest(ctx, protocol.MessageTypeInfo, question, actionApply, actionReject)
		switch {
		case err != nil:
			return base, err
		case action == actionApply:
			take[i] = true
		case action != actionReject:
			return base, nil
		}
	}
	return d.Take(func(i int) bool { return take[i] }), nil
}

// diffHunks is a unified diff without its ---/+++ header: the question
// names the file already.
func diffHunks(diff string) string {
	for range 2 {
		if strings.HasPrefix(diff, "--- ") || strings.HasPrefix(diff, "+++ ") {
			_, diff, _ = strings.Cut(diff, "\n")
		}
	}
	return diff
}

// writeDiff writes diff to <state>/diffs/<file>-<hash>.diff and returns
// its path: named by content, so asking again about the same change
// writes nothing new.
func (s *Server) writeDiff(name, diff string) (string, error) {
	dir, err := s.stateDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "diffs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the diff directory: %w", err)
	}
	sum := sha256.Sum256([]byte(diff))
	path := filepath.Join(dir, filepath.Base(name)+"-"+hex.EncodeToString(sum[:6])+".diff")
	if err := safefile.Write(path, []byte(diff)); err != nil {
		return "", fmt.Errorf("writing the diff: %w", err)
	}
	return path, nil
}
