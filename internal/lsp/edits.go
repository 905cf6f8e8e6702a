package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// annotationID marks every edit of a proposal, so clients that honour
// change annotations preview the whole change before applying it.
const annotationID = "gemini.edit"

// Actions of the window/showMessageRequest confirmation.
const (
	actionApply       = "Apply"
	actionAlwaysApply = "Always Apply"
	actionReject      = "Reject"
	// actionEachChange, offered for an edit of separate changes, asks
	// about each in turn (askEachChange).
	actionEachChange = "One by One"
)

// eglotDeclined is the error eglot answers an applyEdit with when the
// user says n to its own question (eglot asks before every server edit
// up to 1.9, and before edits of files not visited in Emacs 30). Any other
// error answer is a failure of the edit, not the user's decision.
const eglotDeclined = "User cancelled server edit"

// quietAfterChange is how long a document must stay unchanged after an
// edit started landing before its text is taken as the outcome: clients
// may send one didChange per text edit.
const quietAfterChange = 150 * time.Millisecond

// declinedGrace is how long to watch a document after the client said the
// edit was not applied: some clients (eglot) answer null and apply anyway.
const declinedGrace = 300 * time.Millisecond

// pendingSyncLimit bounds how long gemini-ls watches for the didChange of
// an edit it took on the client's word (see reconcile).
const pendingSyncLimit = time.Minute

// The presenter lands an edit call's change as a workspace/applyEdit,
// which the client confirms in the way it can when the agent says the
// user must be asked, and reports what the document then holds. Whether
// to ask is never its decision.

// strategy is how a proposal is confirmed with this client.
type strategy int

const (
	// annotated: one applyEdit whose edits need confirmation; our plugins
	// and VS Code preview it and the answer is the user's decision.
	annotated strategy = iota
	// askFirst: window/showMessageRequest, then a plain applyEdit.
	askFirst
	// plain: applyEdit without asking (the session allowed it).
	plain
)

// Land lands req.Change, asking the user first the way this client can
// when req.Ask says the session did not allow it.
func (p presenter) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	d, always, err := p.land(ctx, req)
	return dialog.Landing{Decision: d, AllowAlways: always}, err
}

// land is Land's work; always says the user chose "Always Apply",
// offered only where req says it would hold.
func (p presenter) land(ctx context.Context, req dialog.LandRequest) (d dialog.Decision, always bool, err error) {
	s, change := p.s, req.Change
	f, ws := s.features.get(), s.agentState.workspace()
	if !f.ApplyEdit {
		return dialog.Decision{Outcome: dialog.Refused, Reason: noApplyEdit}, false, nil
	}
	strat, ok := s.editStrategy(f, req.Ask)
	if !ok {
		return dialog.Decision{Outcome: dialog.Refused, Reason: noWayToAskEdits}, false, nil
	}
	done, err := s.awaitEditTurn(ctx, change.Path)
	if err != nil {
		return dialog.Decision{Outcome: dialog.Refused, Reason: notShownReason}, false, nil
	}
	defer done()
	defer s.landing.add(change.Path)()

	// One look at the document serves the staleness check and the edit's
	// version, so the edit goes out against the text it was checked on.
	doc, open := s.docs.Get(change.Path)
	if stale := p.staleAgainst(change, doc, open); stale != "" {
		return dialog.Decision{Outcome: dialog.Stale, Reason: stale}, false, nil
	}
	name := ws.Display(change.Path)
	base := change.Before
	if !change.Exists {
		base = ""
	}
	diff := workspace.DiffLines(base, change.After)
	added, removed := diff.Stat()
	summary := fmt.Sprintf("%s (+%d −%d)", name, added, removed)

	after := change.After
	if strat == askFirst {
		action, err := s.askToEdit(ctx, f, name, base, change.After, summary, req.CanAllowAlways)
		if err == nil && action == actionEachChange {
			after, err = s.askEachChange(ctx, name, base, change.After)
		}
		switch {
		case err != nil:
			d, err := s.unasked(err, dialog.Refused, "to edit "+name)
			return d, false, err
		case action == actionReject || action == "" || after == base:
			return dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit"}, false, nil
		}
		diff = workspace.DiffLines(base, after)
		// The user decided here; the agent's approval service records it.
		always = action == actionAlwaysApply && req.CanAllowAlways
		// The document may have moved on while the user answered.
		doc, open = s.docs.Get(change.Path)
		if stale := p.staleAgainst(change, doc, open); stale != "" {
			return dialog.Decision{Outcome: dialog.Stale, Reason: stale}, always, nil
		}
	}

	// The folder may have left the workspace while the user answered
	// (workspace/didChangeWorkspaceFolders).
	if err := ws.StillHolds(change); err != nil {
		return dialog.Decision{Outcome: dialog.Refused, Reason: err.Error()}, always, nil
	}
	version := docVersion(doc, open)
	edits := []workspace.TextEdit{newFileEdit(after)}
	if change.Exists {
		edits = diff.Edits(f.Encoding)
	}
	params := p.workspaceEdit(change, doc, open, edits, f, strat == annotated, "Gemini: edit "+summary)
	res, declined, err := s.sendEdit(ctx, params, strat == annotated, "for "+name)
	if err != nil {
		return dialog.Decision{}, false, err
	}
	if declined {
		return dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit in the editor"}, always, nil
	}
	s.log.Debug("applyEdit answered", zap.String("path", change.Path), zap.Bool("applied", res.Applied))

	d, err = p.outcome(ctx, change, version, res)
	return d, always, err
}

// noApplyEdit is why nothing lands in an editor without workspace/applyEdit.
const noApplyEdit = "this editor does not support workspace/applyEdit, so gemini-ls cannot change files in it"

// editStrategy is how this client confirms an edit (ask: the session
// did not allow it); ok is false when it has no way to ask, which the
// user is told.
func (s *Server) editStrategy(f clientFeatures, ask bool) (strat strategy, ok bool) {
	switch {
	case !ask:
		return plain, true
	case (f.EditPreview || f.ChangeAnnotations && !f.VimLSP) && f.DocumentChanges:
		// Annotations travel only in documentChanges.
		return annotated, true
	case s.asking.canAsk():
		return askFirst, true
	default:
		s.explainNoWayToAsk()
		return plain, false
	}
}

// unasked is the decision on an edit whose question failed (err): the
// client cannot ask after all, which the user is told, and the edit's
// outcome is cannot; or the error of asking what.
func (s *Server) unasked(err error, cannot dialog.Outcome, what string) (dialog.Decision, error) {
	if errors.Is(err, errNoShowMessageRequest) {
		s.explainNoWayToAsk()
		return dialog.Decision{Outcome: cannot, Reason: noWayToAskEdits}, nil
	}
	return dialog.Decision{}, fmt.Errorf("asking %s: %w", what, err)
}

// sendEdit sends params as a workspace/applyEdit, which the user
// confirms in the editor if confirmed. declined: the user said n to
// eglot's own "Server wants to edit" question, which eglot asks before
// it touches anything. what names the edit in an error.
func (s *Server) sendEdit(ctx context.Context, params *protocol.ApplyWorkspaceEditParams, confirmed bool, what string) (res protocol.ApplyWorkspaceEditResult, declined bool, err error) {
	send := s.call
	if confirmed {
		send = s.askUser
	}
	if err := send(ctx, "workspace/applyEdit", params, &res); err != nil {
		if ctx.Err() != nil {
			return res, false, ctx.Err()
		}
		var refused *jsonrpc2.Error
		if errors.As(err, &refused) && refused.Message == eglotDeclined {
			return res, true, nil
		}
		return res, false, fmt.Errorf("workspace/applyEdit %s: %w", what, err)
	}
	return res, false, nil
}

// explainNoWayToAsk tells the user, once per connection, why edits are
// declined and how to allow them: the model's tool result is not enough.
func (s *Server) explainNoWayToAsk() {
	if s.asking.firstTelling() {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Gemini: " + noWayToAskEdits})
	}
}

const noWayToAskEdits = "edits need the user's confirmation, but this editor can neither preview an edit nor ask; " +
	`set "approvalMode": "auto_edit" in gemini-ls's initializationOptions to allow edits without asking`

// staleReason reports why change no longer matches what the user has, or "".
func (p presenter) staleReason(change workspace.FileChange) string {
	doc, open := p.s.docs.Get(change.Path)
	return p.staleAgainst(change, doc, open)
}

// staleAgainst is staleReason with the document as the editor last
// synchronised it (open false: not open).
func (p presenter) staleAgainst(change workspace.FileChange, doc workspace.Document, open bool) string {
	if u, ok := p.s.unsynced.get(change.Path); ok && u.version == docVersion(doc, open) && !holds(change.Before, u.after) {
		// The editor holds u.after, not what change was prepared from.
		return unsyncedReason
	}
	switch {
	case change.Open && !open:
		return "the document was closed in the editor after the change was proposed"
	case change.Open && doc.Version != change.Version:
		return fmt.Sprintf("the document moved on to version %d in the editor after the change was proposed against version %d", doc.Version, change.Version)
	case !change.Open && open && doc.Text != change.Before:
		return "the file was opened and changed in the editor after the change was proposed"
	case !change.Open && !open:
		disk, exists := p.currentText(change.Path)
		if exists != change.Exists || (exists && disk != change.Before) {
			return "the file changed on disk after the change was proposed"
		}
	}
	return ""
}

// outcome reads what the exchange did to the document: the truth, whatever
// the client answered. sent is the document's version when the edit went
// out, -1 when it was not open.
func (p presenter) outcome(ctx context.Context, change workspace.FileChange, sent int32, res protocol.ApplyWorkspaceEditResult) (dialog.Decision, error) {
	s := p.s
	wait := s.opts.ConfirmWait
	if !res.Applied {
		wait = declinedGrace
	}
	deadline := time.Now().Add(wait)
	// base is the version a didChange would move the document from: the
	// one it had when the edit went out, or, for a document the edit
	// opened, the one it was first seen open at (didOpen is not a sync of
	// the edit: Neovim and eglot open the buffer before applying to it).
	base := sent
	for {
		doc, open := s.docs.Get(change.Path)
		if open && base < 0 {
			base = doc.Version
		}
		if open && holds(doc.Text, change.After) {
			return dialog.Decision{Outcome: dialog.Applied, Content: doc.Text}, nil
		}
		// Once a didChange arrived, the document only has to settle;
		// before that, give the client until the deadline to send one.
		synced := open && doc.Version != base
		waitFor := time.Until(deadline)
		if synced {
			waitFor = min(waitFor, quietAfterChange)
		}
		if waitFor > 0 {
			wctx, cancel := context.WithTimeout(ctx, waitFor)
			_, _, err := s.docs.Wait(wctx, change.Path, docVersion(doc, open))
			cancel()
			if ctx.Err() != nil {
				return dialog.Decision{}, ctx.Err()
			}
			if err == nil {
				continue
			}
			// Nothing moved for waitFor: settled, or the deadline passed.
		}
		d, pending := p.decide(change, sent, synced, res)
		if pending {
			// Recorded before the next proposal gets its turn.
			version := docVersion(doc, open)
			remove := s.unsynced.add(change.Path, unsyncedEdit{after: change.After, version: version})
			go func() {
				defer remove()
				p.reconcile(change, version)
			}()
		}
		return d, nil
	}
}

func docVersion(doc workspace.Document, open bool) int32 {
	if !open {
		return -1
	}
	return doc.Version
}

// decide classifies the document's settled text; synced reports whether a
// didChange arrived since the edit went out. pending is set when the
// outcome is the client's word, still to be confirmed by a didChange.
//
//	the document holds                          client said   outcome
//	the proposal (or it plus the one final      either        applied
//	  newline an editor adds, see holds)
//	nothing: not open, no file                  applied       applied, on its word
//	                                            not applied   declined
//	the original, in a document not open        applied       declined
//	  before or after (no didOpen came)
//	the original, and no didChange came         applied       applied, pending sync
//	                                            not applied   declined
//	the original, after a didChange             either        declined
//	something else, holding one of the          applied       modified
//	  proposal's hunks as proposed, or nearer
//	  the proposal than the original (see kept)
//	something else, neither                     applied       stale: the document
//	                                                            changed first, and the
//	                                                            edit was skipped or
//	                                                            misplaced
//	something else                              not applied   stale
//
// "Modified" needs the proposal in recognisable part: a hunk the user
// accepted while rejecting another (VS Code's review), or the proposal
// retouched. A document with none of it and nearer the original is the
// user's own typing.
// Neovim produces one when the user typed before the edit reached it: it
// skips an edit for an older version of its buffer, or, for version 0
// (a document just opened), applies it at its old positions in the new
// text, and answers applied either way. Every client opens (didOpen) a
// file it applies an edit to; Emacs 30's eglot answers applied when its
// user says n to its question about a file not visited, and opens nothing.
// eglot sends its didChange only once
// Emacs is idle, so an edit it applied may show no change before the
// deadline (Emacs busy, or a client still blocked in a synchronous
// request); its answer is taken, and checked when the didChange comes.
func (p presenter) decide(change workspace.FileChange, sent int32, synced bool, res protocol.ApplyWorkspaceEditResult) (d dialog.Decision, pending bool) {
	text, visible := p.currentText(change.Path)
	_, openNow := p.s.docs.Get(change.Path)
	// Without a failure reason, the user said no (to the editor's preview
	// or question); with one, the editor failed.
	notApplied := dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit"}
	if res.FailureReason != nil && *res.FailureReason != "" {
		notApplied = dialog.Decision{Outcome: dialog.Refused, Reason: "the editor did not apply the edit: " + *res.FailureReason}
	}
	switch {
	case visible && holds(text, change.After):
		return dialog.Decision{Outcome: dialog.Applied, Content: text}, false
	case !visible && res.Applied:
		// The client applied it somewhere gemini-ls cannot see (a buffer
		// it does not synchronise); its word is all there is.
		return dialog.Decision{Outcome: dialog.Applied, Content: change.After}, false
	case !visible:
		return notApplied, false
	case text == change.Before && res.Applied && sent < 0 && !openNow:
		return dialog.Decision{Outcome: dialog.Refused, Reason: "the editor answered that it applied the edit, but it neither opened the file nor changed it"}, false
	case text == change.Before && res.Applied && !synced:
		return dialog.Decision{Outcome: dialog.Applied, Content: change.After}, true
	case text == change.Before && res.Applied:
		return dialog.Decision{Outcome: dialog.Refused, Reason: "the editor answered that it applied the edit, but the document does not contain it"}, false
	case text == change.Before:
		return notApplied, false
	case res.Applied && kept(text, change.Before, change.After):
		return dialog.Decision{Outcome: dialog.Modified, Content: text}, false
	case res.Applied:
		return dialog.Decision{Outcome: dialog.Stale, Content: text, Reason: "the document changed in the editor before the edit reached it, and the editor did not apply it as proposed, although it answered that it did"}, false
	default:
		return dialog.Decision{Outcome: dialog.Stale, Content: text, Reason: "the document changed while the edit was awaiting confirmation, and the editor did not apply it"}, false
	}
}

// holds reports whether text is the proposal as an editor keeps it:
// exactly, or with the one final line break an editor adds to a file that
// has none (Neovim's 'fixeol' holds even an empty buffer as "\n").
func holds(text, proposal string) bool {
	if text == proposal {
		return true
	}
	if strings.HasSuffix(proposal, "\n") {
		return false
	}
	rest, ok := strings.CutPrefix(text, proposal)
	return ok && (rest == "\n" || rest == "\r\n")
}

// kept reports whether text, a document that is neither the original nor
// the proposal, holds the proposal in recognisable part: one of its hunks
// exactly as proposed, or a text closer to the proposal than to the
// original (fewer bytes removed and inserted to get there; a tie is not
// closer).
func kept(text, original, proposal string) bool {
	hunks := workspace.DiffLines(original, text).Edits(workspace.UTF8)
	for _, e := range workspace.DiffLines(original, proposal).Edits(workspace.UTF8) {
		if slices.Contains(hunks, e) {
			return true
		}
	}
	return distance(proposal, text) < distance(original, text)
}

// distance counts the bytes the narrowed line diff from a to b removes
// and inserts (what it removes is len(a) - len(b) + what it inserts).
func distance(a, b string) int {
	inserted := 0
	for _, e := range workspace.DiffLines(a, b).Edits(workspace.UTF8) {
		inserted += len(e.NewText)
	}
	return 2*inserted + len(a) - len(b)
}

// reconcile watches an edit taken as applied on the client's word before
// any didChange showed it (eglot), from the document's version then (-1:
// not open). The model was told it was applied; if the document the client
// then sends disagrees, the user is warned through the log.
func (p presenter) reconcile(change workspace.FileChange, version int32) {
	s := p.s
	ctx := s.life
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, pendingSyncLimit)
	defer cancel()
	doc, open, err := s.docs.Wait(ctx, change.Path, version)
	if err != nil {
		s.log.Debug("an edit taken on the editor's word was never synchronised", zap.String("path", change.Path))
		return
	}
	for open {
		// Settle: a client may send one didChange per text edit.
		qctx, qcancel := context.WithTimeout(ctx, quietAfterChange)
		next, nextOpen, err := s.docs.Wait(qctx, change.Path, doc.Version)
		qcancel()
		if err != nil {
			break
		}
		doc, open = next, nextOpen
	}
	text, visible := p.currentText(change.Path)
	if visible && holds(text, change.After) {
		s.log.Debug("a late didChange confirmed an applied edit", zap.String("path", change.Path))
		return
	}
	s.log.Warn("the editor said it applied an edit and the model was told so, but the document it synchronised later does not hold it",
		zap.String("path", change.Path), zap.Int("proposedBytes", len(change.After)), zap.Int("documentBytes", len(text)), zap.Bool("visible", visible))
}

// currentText is the document's text, else the file on disk, read as the
// tools read it (a regular file inside the roots, bounded, never blocking
// on a FIFO put in its place); visible is false when neither can be read.
func (p presenter) currentText(path string) (string, bool) {
	s := p.s
	if doc, ok := s.docs.Get(path); ok {
		return doc.Text, true
	}
	ws := s.agentState.workspace()
	if ws == nil {
		return "", false
	}
	f, err := ws.ReadFile(s.life, path, workspace.MaxFileSize)
	if err != nil {
		return "", false
	}
	return string(f.Content), true
}

// workspaceEdit builds the applyEdit params for change, against doc when
// it is open.
func (p presenter) workspaceEdit(change workspace.FileChange, doc workspace.Document, open bool, edits []workspace.TextEdit, f clientFeatures, confirm bool, label string) *protocol.ApplyWorkspaceEditParams {
	docURI := uri.File(change.Path)
	var version *int32
	if open {
		docURI = uri.URI(doc.URI)
		v := doc.Version
		version = &v
	}

	var ann protocol.ChangeAnnotationIdentifier
	var annotations map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation
	if confirm {
		ann = annotationID
		needs := true
		desc := "Review the change Gemini proposes before it is applied."
		annotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			ann: {Label: label, NeedsConfirmation: &needs, Description: &desc},
		}
	}
	elems := make([]protocol.TextDocumentEditElement, len(edits))
	plainEdits := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		te := protocol.TextEdit{Range: toProtocolRange(e.Range), NewText: e.NewText}
		plainEdits[i] = te
		if confirm {
			elems[i] = &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: ann}
		} else {
			elems[i] = &protocol.TextEdit{Range: te.Range, NewText: te.NewText}
		}
	}
	edit := protocol.WorkspaceEdit{ChangeAnnotations: annotations}
	if f.DocumentChanges {
		if !change.Exists && f.CreateFiles {
			ignore := true
			edit.DocumentChanges = append(edit.DocumentChanges, &protocol.CreateFile{
				ResourceOperation: protocol.ResourceOperation{Kind: "create", AnnotationID: ann},
				Kind:              "create",
				URI:               docURI,
				Options:           &protocol.CreateFileOptions{IgnoreIfExists: &ignore},
			})
		}
		tde := &protocol.TextDocumentEdit{Edits: elems}
		tde.TextDocument.URI = docURI
		tde.TextDocument.Version = version
		edit.DocumentChanges = append(edit.DocumentChanges, tde)
	} else {
		edit.Changes = map[uri.URI][]protocol.TextEdit{docURI: plainEdits}
	}
	return &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}
}

// newFileEdit puts content into a new, empty document. Its range ends at
// the start of line 1, past the end: LSP ranges take a line's break that
// way, every client clamps it to the end (VS Code, Helix, Emacs), and it
// makes Neovim drop the empty line its buffer always ends with, so the
// document holds exactly content. An insertion at 0:0 would leave Neovim
// with an extra blank line at the end.
func newFileEdit(content string) workspace.TextEdit {
	return workspace.TextEdit{Range: workspace.Range{End: workspace.Position{Line: 1}}, NewText: content}
}

func toProtocolRange(r workspace.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// errNoShowMessageRequest: the client cannot ask the user.
var errNoShowMessageRequest = errors.New("the client does not support window/showMessageRequest")

// showMessageRequest asks the user and returns the chosen action's title,
// "" when dismissed. A client that answers MethodNotFound is remembered as
// unable to ask.
func (s *Server) showMessageRequest(ctx context.Context, typ protocol.MessageType, message string, actions ...string) (string, error) {
	items := make([]protocol.MessageActionItem, len(actions))
	for i, a := range actions {
		items[i].Title = a
	}
	var chosen *protocol.MessageActionItem
	err := s.call(ctx, "window/showMessageRequest", &protocol.ShowMessageRequestParams{Type: typ, Message: message, Actions: items}, &chosen)
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound {
		s.asking.markCannotAsk()
		return "", errNoShowMessageRequest
	}
	if err != nil {
		return "", err
	}
	if chosen == nil {
		return "", nil
	}
	return chosen.Title, nil
}
