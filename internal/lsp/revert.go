package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Actions of a revert's window/showMessageRequest; an edit call's
// changes are asked about with the edit's Apply and Reject.
const (
	actionRevert     = "Revert"
	actionKeepChange = "Cancel"
	// actionLand lands an agent's work (agentland.go).
	actionLand = "Land"
)

// LandFiles lands changes of several files as ONE workspace/applyEdit:
// a rewind's revert, or an edit call's change across files (a rename).
// The user previews and confirms it as a whole where the client can
// (change annotations, our plugins), else after one
// window/showMessageRequest; an edit call the approval service allowed
// (CallID set, Ask not) goes without a question. Then it reads what each
// document holds, as Land does, and reports each file's outcome.
func (p presenter) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	s := p.s
	out := make([]dialog.Decision, len(req.Changes))
	f := s.features.get()
	w := filesWording(req)
	if !f.ApplyEdit {
		return fill(out, dialog.Decision{Outcome: w.cannot, Reason: noApplyEdit}), nil
	}
	strat, ok := s.editStrategy(f, req.CallID == "" || req.Ask)
	if !ok {
		return fill(out, dialog.Decision{Outcome: w.cannot, Reason: noWayToAskEdits}), nil
	}
	done, err := s.awaitEditTurn(ctx, "")
	if err != nil {
		if w.call {
			return fill(out, dialog.Decision{Outcome: dialog.Refused, Reason: notShownReason}), nil
		}
		return nil, err
	}
	defer done()
	for _, c := range req.Changes {
		defer s.landing.add(c.Path)()
	}

	sent := p.landable(req, f, out) // the changes in the edit
	if len(sent) == 0 {
		return out, nil
	}
	if strat == askFirst {
		action, err := s.showMessageRequest(ctx, w.questionType, p.filesQuestion(req, sent), w.yes, w.no)
		switch {
		case err != nil:
			d, err := s.unasked(err, w.cannot, "whether to "+w.verb)
			if err != nil {
				return nil, err
			}
			return fillAt(out, sent, d), nil
		case action != w.yes:
			return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the " + w.noun}), nil
		}
	}
	edit, sent := p.filesEdit(req, sent, out, f, strat == annotated, w.review)
	if len(sent) == 0 {
		return out, nil
	}
	label := "Gemini: " + req.Title
	params := &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}
	res, declined, err := s.sendEdit(ctx, params, strat == annotated, "of the "+w.noun)
	switch {
	case err != nil:
		return nil, err
	case declined:
		return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the " + w.noun + " in the editor"}), nil
	case !res.Applied:
		reason := "the user declined the " + w.noun
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = "the editor did not apply the " + w.noun + ": " + *res.FailureReason
		}
		return fillAt(out, sent, dialog.Decision{Outcome: dialog.Declined, Reason: reason}), nil
	}
	for _, i := range sent {
		d, err := p.filesOutcome(ctx, req.Changes[i], w, strat == annotated)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// landable are the indexes of the changes that can go in the edit; out
// has the decision on each other one.
func (p presenter) landable(req dialog.LandFilesRequest, f clientFeatures, out []dialog.Decision) []int {
	var sent []int
	for i, c := range req.Changes {
		if stale := p.staleReason(c.FileChange); stale != "" {
			out[i] = dialog.Decision{Outcome: dialog.Stale, Reason: stale}
			continue
		}
		if c.Remove && !(f.DocumentChanges && f.DeleteFiles) {
			out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: "the agent created this file, and this editor cannot delete files through workspace/applyEdit"}
			continue
		}
		sent = append(sent, i)
	}
	return sent
}

// filesEdit is the edit of the changes at sent, made against what the
// editor holds now: the documents may have moved on while the user
// answered. Those that did are left out, their decision in out.
func (p presenter) filesEdit(req dialog.LandFilesRequest, sent []int, out []dialog.Decision, f clientFeatures, confirmed bool, review string) (protocol.WorkspaceEdit, []int) {
	edit := protocol.WorkspaceEdit{}
	sent = slices.DeleteFunc(sent, func(i int) bool {
		c := req.Changes[i]
		doc, open := p.s.docs.Get(c.Path)
		if stale := p.staleAgainst(c.FileChange, doc, open); stale != "" {
			out[i] = dialog.Decision{Outcome: dialog.Stale, Reason: stale}
			return true
		}
		p.addRevert(&edit, c, doc, open, f, confirmed, req.Title, review)
		return false
	})
	return edit, sent
}

// filesWords are how LandFiles speaks of what it lands: a revert the user
// asked for, or an edit of the agent's.
type filesWords struct {
	call         bool   // an edit call's changes
	noun, verb   string // "revert", "edit"; "revert", "apply the edit"
	review       string // the preview's description
	yes, no      string // the question's actions
	questionType protocol.MessageType
	// cannot is the outcome where the change cannot be landed: a revert
	// the user asked for is declined, an edit refused, as Land refuses it.
	cannot dialog.Outcome
}

func filesWording(req dialog.LandFilesRequest) filesWords {
	if req.Landing {
		return filesWords{noun: "landing", verb: "land the agent's work", review: "Review the agent's work before it lands in your tree.",
			yes: actionLand, no: actionKeepChange, questionType: protocol.MessageTypeInfo, cannot: dialog.Declined}
	}
	if req.CallID == "" {
		return filesWords{noun: "revert", verb: "revert", review: "Review the revert before it is applied.",
			yes: actionRevert, no: actionKeepChange, questionType: protocol.MessageTypeWarning, cannot: dialog.Declined}
	}
	return filesWords{call: true, noun: "edit", verb: "apply the edit", review: "Review the change before it is applied.",
		yes: actionApply, no: actionReject, questionType: protocol.MessageTypeInfo, cannot: dialog.Refused}
}

// filesQuestion is the showMessageRequest's message: the title, and for
// an edit call, which is not the user's idea, each file it changes, as
// the edit question shows a file's.
func (p presenter) filesQuestion(req dialog.LandFilesRequest, sent []int) string {
	if !filesWording(req).call {
		return fmt.Sprintf("Gemini: %s?", req.Title)
	}
	ws := p.s.agentState.workspace()
	files := make([]string, 0, len(sent))
	for _, i := range sent {
		c := req.Changes[i]
		name := c.Path
		if ws != nil {
			name = ws.Display(c.Path)
		}
		added, removed := workspace.DiffLines(c.Before, c.After).Stat()
		files = append(files, fmt.Sprintf("%s (+%d −%d)", name, added, removed))
	}
	return fmt.Sprintf("Gemini wants to %s: %s?", lowerFirst(req.Title), strings.Join(files, ", "))
}

// lowerFirst is title as it reads inside a sentence ("Rename X to Y" →
// "rename X to Y").
func lowerFirst(title string) string {
	r, size := utf8.DecodeRuneInString(title)
	if r == utf8.RuneError {
		return title
	}
	return string(unicode.ToLower(r)) + title[size:]
}

// addRevert adds c to edit: the file's text edits against what the
// editor holds, or its deletion.
func (p presenter) addRevert(edit *protocol.WorkspaceEdit, c dialog.RevertChange, doc workspace.Document, open bool, f clientFeatures, annotated bool, title, review string) {
	var ann protocol.ChangeAnnotationIdentifier
	if annotated {
		ann = annotationID
		needs := true
		desc := review
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

// filesOutcome waits, up to the confirmation wait, for the editor to
// show the file changed, and reports what it holds. A file that still
// holds what it held was left out of a previewed edit (VS Code's
// refactor preview unchecks files): declined, not stale.
func (p presenter) filesOutcome(ctx context.Context, c dialog.RevertChange, w filesWords, previewed bool) (dialog.Decision, error) {
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
			if w.call && previewed && visible && c.Exists && text == c.Before {
				return dialog.Decision{Outcome: dialog.Declined, Reason: "the user left this file out of the edit"}, nil
			}
			return dialog.Decision{Outcome: dialog.Stale, Content: text, Reason: "the editor answered that it applied the " + w.noun + ", but the file does not hold it"}, nil
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
