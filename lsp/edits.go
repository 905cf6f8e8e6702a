package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// annotationID marks every edit of a proposal, so clients that honour
// change annotations preview the whole change before applying it.
const annotationID = "gemini.edit"

// Actions of the window/showMessageRequest confirmation.
const (
	actionApply       = "Apply"
	actionAlwaysApply = "Always Apply"
	actionReject      = "Reject"
)

// quietAfterChange is how long a document must stay unchanged after an
// edit started landing before its text is taken as the outcome: clients
// may send one didChange per text edit.
const quietAfterChange = 150 * time.Millisecond

// declinedGrace is how long to watch a document after the client said the
// edit was not applied: some clients (eglot) answer null and apply anyway.
const declinedGrace = 300 * time.Millisecond

// editProposer turns a tool's FileChange into a workspace/applyEdit the
// client confirms in the way it can, and reports what the document then
// holds.
type editProposer struct{ s *Server }

// strategy is how a proposal is confirmed with this client.
type strategy int

const (
	// annotated: one applyEdit whose edits need confirmation; our plugins
	// and VS Code preview it and the answer is the user's decision.
	annotated strategy = iota
	// askFirst: window/showMessageRequest, then a plain applyEdit.
	askFirst
	// plain: applyEdit without asking (auto-approved).
	plain
)

func (p *editProposer) Propose(ctx context.Context, change workspace.FileChange) (tools.Decision, error) {
	s := p.s
	info, _ := tools.CallInfoFrom(ctx)
	s.mu.Lock()
	f, noAsk, ws := s.features, s.noAsk, s.ws
	s.mu.Unlock()
	if !f.ApplyEdit {
		return tools.Decision{Outcome: tools.Declined, Reason: "this editor does not support workspace/applyEdit, so gemini-ls cannot change files in it"}, nil
	}
	strat := plain
	switch {
	case info.AutoApprove:
	case (f.EditPreview || f.ChangeAnnotations) && f.DocumentChanges:
		// Annotations travel only in documentChanges.
		strat = annotated
	case !noAsk:
		strat = askFirst
	default:
		s.explainNoWayToAsk()
		return tools.Decision{Outcome: tools.Declined, Reason: noWayToAskEdits}, nil
	}

	done, err := s.awaitEditTurn(ctx, change.Path)
	if err != nil {
		return tools.Decision{Outcome: tools.Declined, Reason: notShownReason}, nil
	}
	defer done()

	if stale := p.staleReason(change); stale != "" {
		return tools.Decision{Outcome: tools.Stale, Reason: stale}, nil
	}
	name := displayName(ws, change.Path)
	base := change.Before
	if !change.Exists {
		base = ""
	}
	diff := workspace.DiffLines(base, change.After)
	added, removed := diff.Stat()
	summary := fmt.Sprintf("%s (+%d −%d)", name, added, removed)

	var always bool
	if strat == askFirst {
		action, err := s.showMessageRequest(ctx, protocol.MessageTypeInfo, "Gemini wants to edit "+summary, actionApply, actionAlwaysApply, actionReject)
		switch {
		case errors.Is(err, errNoShowMessageRequest):
			s.explainNoWayToAsk()
			return tools.Decision{Outcome: tools.Declined, Reason: noWayToAskEdits}, nil
		case err != nil:
			return tools.Decision{}, fmt.Errorf("asking to edit %s: %w", name, err)
		case action == actionReject || action == "":
			return tools.Decision{Outcome: tools.Declined, Reason: "the user declined the edit"}, nil
		}
		always = action == actionAlwaysApply
		if stale := p.staleReason(change); stale != "" {
			return tools.Decision{Outcome: tools.Stale, Reason: stale}, nil
		}
	}

	before, wasOpen := s.docs.Get(change.Path)
	version := int32(-1)
	if wasOpen {
		version = before.Version
	}
	params := p.workspaceEdit(change, diff.Edits(f.Encoding), f, strat == annotated, "Gemini: edit "+summary)
	var res protocol.ApplyWorkspaceEditResult
	send := s.call
	if strat == annotated {
		send = s.askUser
	}
	if err := send(ctx, "workspace/applyEdit", params, &res); err != nil {
		if ctx.Err() != nil {
			return tools.Decision{}, ctx.Err()
		}
		return tools.Decision{}, fmt.Errorf("workspace/applyEdit for %s: %w", name, err)
	}
	s.log.Debug("applyEdit answered", zap.String("path", change.Path), zap.Bool("applied", res.Applied))

	d, err := p.outcome(ctx, change, version, res)
	d.AlwaysAllow = always
	return d, err
}

// explainNoWayToAsk tells the user, once per connection, why edits are
// declined and how to allow them: the model's tool result is not enough.
func (s *Server) explainNoWayToAsk() {
	s.mu.Lock()
	told := s.toldNoWayToAsk
	s.toldNoWayToAsk = true
	s.mu.Unlock()
	if !told {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Gemini: " + noWayToAskEdits})
	}
}

const noWayToAskEdits = "edits need the user's confirmation, but this editor can neither preview an edit nor ask; " +
	`set "approvalMode": "auto_edit" in gemini-ls's initializationOptions to allow edits without asking`

// staleReason reports why change no longer matches what the user has, or "".
func (p *editProposer) staleReason(change workspace.FileChange) string {
	doc, open := p.s.docs.Get(change.Path)
	switch {
	case change.Open && !open:
		return "the document was closed in the editor after the change was proposed"
	case change.Open && doc.Version != change.Version:
		return fmt.Sprintf("the document moved on to version %d in the editor after the change was proposed against version %d", doc.Version, change.Version)
	case !change.Open && open && doc.Text != change.Before:
		return "the file was opened and changed in the editor after the change was proposed"
	case !change.Open && !open:
		disk, err := os.ReadFile(change.Path)
		exists := err == nil
		if exists != change.Exists || (exists && trimBOM(string(disk)) != change.Before) {
			return "the file changed on disk after the change was proposed"
		}
	}
	return ""
}

func trimBOM(s string) string {
	if len(s) >= 3 && s[:3] == "\uFEFF" {
		return s[3:]
	}
	return s
}

// outcome reads what the exchange did to the document: the truth, whatever
// the client answered.
func (p *editProposer) outcome(ctx context.Context, change workspace.FileChange, version int32, res protocol.ApplyWorkspaceEditResult) (tools.Decision, error) {
	s := p.s
	wait := s.opts.ConfirmWait
	if !res.Applied {
		wait = declinedGrace
	}
	deadline := time.Now().Add(wait)
	for {
		doc, open := s.docs.Get(change.Path)
		if open && doc.Text == change.After {
			return tools.Decision{Outcome: tools.Applied, Content: doc.Text}, nil
		}
		// Once the document moved, it only has to settle; before that,
		// give the client until the deadline to start.
		changed := open && doc.Version != version
		waitFor := time.Until(deadline)
		if changed {
			waitFor = min(waitFor, quietAfterChange)
		}
		if waitFor <= 0 {
			return p.decide(change, res), nil
		}
		wctx, cancel := context.WithTimeout(ctx, waitFor)
		_, _, err := s.docs.Wait(wctx, change.Path, docVersion(doc, open))
		cancel()
		if ctx.Err() != nil {
			return tools.Decision{}, ctx.Err()
		}
		if err != nil {
			// Nothing moved for waitFor: settled, or the deadline passed.
			return p.decide(change, res), nil
		}
	}
}

func docVersion(doc workspace.Document, open bool) int32 {
	if !open {
		return -1
	}
	return doc.Version
}

// decide classifies the document's settled text.
func (p *editProposer) decide(change workspace.FileChange, res protocol.ApplyWorkspaceEditResult) tools.Decision {
	text, visible := p.currentText(change.Path)
	reason := "the user declined the edit"
	if res.FailureReason != nil && *res.FailureReason != "" {
		reason = "the editor did not apply the edit: " + *res.FailureReason
	}
	switch {
	case visible && text == change.After:
		return tools.Decision{Outcome: tools.Applied, Content: text}
	case visible && text == change.Before:
		return tools.Decision{Outcome: tools.Declined, Reason: reason}
	case !visible && res.Applied:
		// The client applied it somewhere gemini-ls cannot see (a buffer
		// it does not synchronise); its word is all there is.
		return tools.Decision{Outcome: tools.Applied, Content: change.After}
	case !visible:
		return tools.Decision{Outcome: tools.Declined, Reason: reason}
	case res.Applied:
		return tools.Decision{Outcome: tools.Modified, Content: text}
	default:
		// Neither the proposal nor the original, and not applied: the
		// document moved on while the user was deciding.
		return tools.Decision{Outcome: tools.Stale, Reason: "the document changed while the edit was awaiting confirmation, and the editor did not apply it"}
	}
}

// currentText is the document's text, else the file on disk; visible is
// false when neither exists.
func (p *editProposer) currentText(path string) (string, bool) {
	if doc, ok := p.s.docs.Get(path); ok {
		return doc.Text, true
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return trimBOM(string(b)), true
}

// workspaceEdit builds the applyEdit params for change.
func (p *editProposer) workspaceEdit(change workspace.FileChange, edits []workspace.TextEdit, f clientFeatures, confirm bool, label string) *protocol.ApplyWorkspaceEditParams {
	docURI := uri.File(change.Path)
	var version *int32
	if doc, ok := p.s.docs.Get(change.Path); ok {
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

func toProtocolRange(r workspace.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// displayName is path relative to the first root when inside it.
func displayName(ws *workspace.Workspace, path string) string {
	if ws != nil {
		if rel, err := filepath.Rel(ws.Roots()[0], path); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return path
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
		s.mu.Lock()
		s.noAsk = true
		s.mu.Unlock()
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
