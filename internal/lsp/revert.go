package lsp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Actions of a revert's window/showMessageRequest.
const (
	actionRevert     = "Revert"
	actionKeepChange = "Cancel"
)

// LandFiles lands a rewind's revert as ONE workspace/applyEdit of every
// file, which the user previews and confirms as a whole where the client
// can (change annotations, our plugins), else after one
// window/showMessageRequest; then it reads what each document holds, as
// Land does, and reports each file's outcome.
func (p presenter) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	s := p.s
	out := make([]dialog.Decision, len(req.Changes))
	f := s.features.get()
	if !f.ApplyEdit {
		return fill(out, dialog.Decision{Outcome: dialog.Declined, Reason: "this editor does not support workspace/applyEdit, so gemini-ls cannot change files in it"}), nil
	}
	annotated := (f.EditPreview || f.ChangeAnnotations && !f.VimLSP) && f.DocumentChanges
	if !annotated && !s.asking.canAsk() {
		s.explainNoWayToAsk()
		return fill(out, dialog.Decision{Outcome: dialog.Declined, Reason: noWayToAskEdits}), nil
	}
	done, err := s.awaitEditTurn(ctx, "")
	if err != nil {
		return nil, err
	}
	defer done()

	edit := protocol.WorkspaceEdit{}
	var sent []int // the changes in the edit
	for i, c := range req.Changes {
		doc, open := s.docs.Get(c.Path)
		if stale := p.staleAgainst(c.FileChange, doc, open); stale != "" {
			out[i] = dialog.Decision{Outcome: dialog.Stale, Reason: stale}
			continue
		}
		if c.Remove && !(f.DocumentChanges && f.DeleteFiles) {
			out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: "the agent created this file, and this editor cannot delete files through workspace/applyEdit"}
			continue
		}
		p.addRevert(&edit, c, doc, open, f, annotated, req.Title)
		sent = append(sent, i)
	}
	if len(sent) == 0 {
		return out, nil
	}
	if !annotated {
		action, err := s.showMessageRequest(ctx, protocol.MessageTypeWarning, fmt.Sprintf("Gemini: %s?", req.Title), actionRevert, actionKeepChange)
		switch {
		case errors.Is(err, errNoShowMessageRequest):
			s.explainNoWayToAsk()
			return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: noWayToAskEdits}), nil
		case err != nil:
			return nil, fmt.Errorf("asking whether to revert: %w", err)
		case action != actionRevert:
			return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the revert"}), nil
		}
	}
	label := "Gemini: " + req.Title
	params := &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}
	var res protocol.ApplyWorkspaceEditResult
	send := s.call
	if annotated {
		send = s.askUser
	}
	if err := send(ctx, "workspace/applyEdit", params, &res); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var refused *jsonrpc2.Error
		if errors.As(err, &refused) && refused.Message == eglotDeclined {
			return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the revert in the editor"}), nil
		}
		return nil, fmt.Errorf("workspace/applyEdit of the revert: %w", err)
	}
	if !res.Applied {
		reason := "the user declined the revert"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = "the editor did not apply the revert: " + *res.FailureReason
		}
		return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: reason}), nil
	}
	for _, i := range sent {
		d, err := p.revertOutcome(ctx, req.Changes[i])
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// addRevert adds c to edit: the file's text edits against what the
// editor holds, or its deletion.
func (p presenter) addRevert(edit *protocol.WorkspaceEdit, c dialog.RevertChange, doc workspace.Document, open bool, f clientFeatures, annotated bool, title string) {
	var ann protocol.ChangeAnnotationIdentifier
	if annotated {
		ann = annotationID
		needs := true
		desc := "Review the revert before it is applied."
		edit.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			ann: {Label: "Gemini: " + title, NeedsConfirmation: &needs, Description: &desc},
		}
	}
	if c.Remove {
		docURI := uri.File(c.Path)
		if open {
			docURI = uri.URI(doc.URI)
		}
		edit.DocumentChanges = append(edit.DocumentChanges, &protocol.DeleteFile{
			ResourceOperation: protocol.ResourceOperation{Kind: "delete", AnnotationID: ann},
			Kind:              "delete",
			URI:               docURI,
		})
		return
	}
	edits := []workspace.TextEdit{newFileEdit(c.After)}
	if c.Exists {
		edits = workspace.DiffLines(c.Before, c.After).Edits(f.Encoding)
	}
	one := p.workspaceEdit(c.FileChange, doc, open, edits, f, annotated, title)
	edit.DocumentChanges = append(edit.DocumentChanges, one.Edit.DocumentChanges...)
	for u, e := range one.Edit.Changes {
		if edit.Changes == nil {
			edit.Changes = map[uri.URI][]protocol.TextEdit{}
		}
		edit.Changes[u] = e
	}
}

// revertOutcome waits, up to the confirmation wait, for the editor to
// show the reverted file, and reports what it holds.
func (p presenter) revertOutcome(ctx context.Context, c dialog.RevertChange) (dialog.Decision, error) {
	s := p.s
	deadline := time.Now().Add(s.opts.ConfirmWait)
	for {
		doc, open := s.docs.Get(c.Path)
		text, visible := p.currentText(c.Path)
		switch {
		case c.Remove && !visible:
			return dialog.Decision{Outcome: dialog.Applied}, nil
		case !c.Remove && visible && holds(text, c.After):
			return dialog.Decision{Outcome: dialog.Applied, Content: text}, nil
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return dialog.Decision{Outcome: dialog.Stale, Content: text, Reason: "the editor answered that it applied the revert, but the file does not hold it"}, nil
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		_, _, err := s.docs.Wait(wctx, c.Path, docVersion(doc, open))
		cancel()
		if ctx.Err() != nil {
			return dialog.Decision{}, ctx.Err()
		}
		if err != nil {
			deadline = time.Now() // nothing moved until the deadline
		}
	}
}

// fill sets every decision to d.
func fill(out []dialog.Decision, d dialog.Decision) []dialog.Decision {
	for i := range out {
		out[i] = d
	}
	return out
}

// fillAt sets the decisions at indexes to d.
func fillAt(out []dialog.Decision, indexes []int, d dialog.Decision) []dialog.Decision {
	for _, i := range indexes {
		out[i] = d
	}
	return out
}
