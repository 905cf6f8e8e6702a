package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// An edit of a selection (gemini/editSelection for our plugins, the
// gemini.editSelection command for the rest) rewrites the text the user
// selected as their instruction says, in one model call outside any
// conversation, and proposes the rewrite as a workspace/applyEdit: the
// plugins review it hunk by hunk, as they review the agent's edits.

// CommandEditSelection is gemini/editSelection as a command.
const CommandEditSelection = "gemini.editSelection"

// editSelectionParams are gemini/editSelection's params, and the
// gemini.editSelection command's argument.
type editSelectionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range       *lspRange `json:"range"`
	Instruction string    `json:"instruction"`
}

// editStarted is gemini.editSelection's answer.
type editStarted struct {
	Status string `json:"status"` // "started"
}

// editSelectionResult says what became of the edit.
type editSelectionResult struct {
	// Outcome is applied, modified (the user took part of it, or changed
	// it), declined, unchanged (the model changed nothing, so nothing was
	// proposed), refused or stale.
	Outcome dialog.Outcome `json:"outcome"`
	// Message tells the user so.
	Message string `json:"message"`
	// Model is the model that wrote the edit.
	Model string `json:"model,omitempty"`
}

// editSelection answers gemini/editSelection once the edit was decided.
func (s *Server) editSelection(ctx context.Context, p editSelectionParams) (editSelectionResult, error) {
	req, name, err := s.selectionEdit(ctx, p)
	if err != nil {
		return editSelectionResult{}, err
	}
	if v, ok := ctx.Value(arrivedVersion{}).(int32); ok {
		if doc, open := s.docs.Get(req.Path); !open || doc.Version != v {
			return editedResult(name, dialog.SelectionEdited{Decision: dialog.Decision{Outcome: dialog.Stale, Reason: "the document changed before Gemini read the selection"}}), nil
		}
	}
	built, err := s.agentState.runner()
	if err != nil {
		return editSelectionResult{}, err
	}
	got, err := s.host.EditSelection(ctx, built, req, presenter{s})
	if err != nil {
		if ctx.Err() != nil {
			return editSelectionResult{}, jsonrpc2.NewError(codeRequestCancelled, "the edit was cancelled")
		}
		return editSelectionResult{}, jsonrpc2.NewError(codeRequestFailed, "Gemini could not edit the selection: "+err.Error())
	}
	return editedResult(name, got), nil
}

// editSelectionCommand runs gemini.editSelection for clients without our
// plugin (Helix's code action). Like gemini.prompt it answers at once, as
// no client should wait on a request for the model; the edit goes on
// shown through $/progress, and its outcome is said in
// window/showMessage.
func (s *Server) editSelectionCommand(ctx context.Context, args []json.RawMessage) (editStarted, error) {
	if len(args) == 0 {
		return editStarted{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: gemini.editSelection needs an argument: {"textDocument": {"uri": ...}, "range": ..., "instruction": "..."}`)
	}
	var p editSelectionParams
	if err := decodeParams(args[0], &p); err != nil {
		return editStarted{}, err
	}
	// Read now: the selection is what the user had when they asked.
	req, name, err := s.selectionEdit(ctx, p)
	if err != nil {
		return editStarted{}, err
	}
	built, err := s.agentState.runner()
	if err != nil {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "Gemini: " + err.Error()})
		return editStarted{}, err
	}
	f := s.features.get()
	work, cancel := context.WithCancel(s.life)
	s.handlers.start()
	go func() {
		defer s.handlers.finish()
		defer cancel()
		prog := s.beginProgress(work, f, "Editing "+name+": "+req.Instruction, cancel)
		defer prog.forget()
		got, err := s.host.EditSelection(work, built, req, presenter{s})
		res := editedResult(name, got)
		typ := protocol.MessageTypeInfo
		switch {
		case work.Err() != nil:
			res.Message, typ = "Gemini: the edit was cancelled.", protocol.MessageTypeWarning
		case err != nil:
			res.Message, typ = "Gemini could not edit the selection: "+err.Error(), protocol.MessageTypeError
		case res.Outcome == dialog.Refused || res.Outcome == dialog.Stale:
			typ = protocol.MessageTypeWarning
		}
		prog.end(ellipsis.Cut(res.Message, 100))
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: res.Message})
	}()
	return editStarted{Status: "started"}, nil
}

// selectionEdit reads p as the agent's request, against the document as
// the editor has it (else the file on disk); name is how the file is
// shown to the user.
func (s *Server) selectionEdit(ctx context.Context, p editSelectionParams) (req dialog.SelectionEdit, name string, err error) {
	switch {
	case p.TextDocument.URI == "":
		return req, "", missingField("textDocument.uri")
	case p.Range == nil:
		return req, "", missingField("range")
	case p.Instruction == "":
		return req, "", missingField("instruction")
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return req, "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: textDocument.uri: %v", err)
	}
	ws := s.agentState.workspace()
	req = dialog.SelectionEdit{Path: path, Instruction: p.Instruction}
	if doc, open := s.docs.Get(path); open {
		req.Text, req.Language = doc.Text, doc.LanguageID
	} else {
		f, err := ws.ReadFile(ctx, path, workspace.MaxFileSize)
		if err != nil {
			return req, "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: cannot read %s: %v", path, err)
		}
		req.Text = string(f.Content)
	}
	enc := s.features.get().Encoding
	req.Start = workspace.OffsetAt(req.Text, p.Range.Start.toWorkspace(), enc)
	req.End = workspace.OffsetAt(req.Text, p.Range.End.toWorkspace(), enc)
	if req.Start > req.End {
		req.Start, req.End = req.End, req.Start
	}
	return req, ws.Display(path), nil
}

// editedResult is the answer, and what the user is told, of got.
func editedResult(name string, got dialog.SelectionEdited) editSelectionResult {
	res := editSelectionResult{Outcome: got.Outcome, Model: got.Model}
	switch got.Outcome {
	case dialog.Applied:
		res.Message = "Gemini edited the selection in " + name + "."
	case dialog.Modified:
		res.Message = "Gemini's edit of " + name + " was applied in part."
	case dialog.Declined:
		res.Message = "Gemini's edit of " + name + " was rejected; nothing changed."
	case dialog.SelectionUnchanged:
		res.Message = "Gemini found nothing to change in the selection."
	default:
		res.Message = fmt.Sprintf("Gemini did not edit %s: %s.", name, strings.TrimSuffix(got.Reason, "."))
	}
	return res
}
