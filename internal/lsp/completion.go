package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Completion as the user types (textDocument/inlineCompletion, LSP 3.18),
// the feedback Copilot's language server takes (didShowCompletion,
// didPartiallyAcceptCompletion, didShowInlineEdit, an accept command, the
// didFocus of the document the user is in), next edit suggestions (Copilot's
// textDocument/copilotInlineEdit, and gemini/nextEdit, its older name here)
// and, for editors without inline completion, the suggestion as a
// textDocument/completion item. The work is package completion's; the
// handlers translate.

// CommandAcceptCompletion is the command an inline completion item
// carries, which the editor runs once the user accepted it.
const CommandAcceptCompletion = "gemini.acceptCompletion"

type inlineCompletionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position lspPosition `json:"position"`
	Context  struct {
		TriggerKind            int `json:"triggerKind"`
		SelectedCompletionInfo *struct {
			Range lspRange `json:"range"`
			Text  string   `json:"text"`
		} `json:"selectedCompletionInfo"`
	} `json:"context"`
	// Diagnostics are gemini-ls's own: the editor's diagnostics of the
	// document, which the plugins send.
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
}

type inlineCompletionItem struct {
	InsertText string    `json:"insertText"`
	Range      *lspRange `json:"range,omitempty"`
	Command    *command  `json:"command,omitempty"`
}

type inlineCompletionList struct {
	Items []inlineCompletionItem `json:"items"`
}

// inlineCompletion answers textDocument/inlineCompletion with at most one
// item. A request cancelled by $/cancelRequest is answered
// RequestCancelled; one superseded by the next, or stale, with no items.
func (s *Server) inlineCompletion(ctx context.Context, p inlineCompletionParams) (inlineCompletionList, error) {
	req, err := s.completionRequest(ctx, p)
	if err != nil {
		return inlineCompletionList{}, err
	}
	got, err := s.completion.Complete(ctx, req)
	if err := completionError(ctx, err, s.log); err != nil {
		return inlineCompletionList{}, err
	}
	list := inlineCompletionList{Items: []inlineCompletionItem{}}
	for _, g := range got {
		r := fromWorkspaceRange(g.Range)
		list.Items = append(list.Items, inlineCompletionItem{
			InsertText: g.Text,
			Range:      &r,
			Command:    &command{Title: "Accept", Command: CommandAcceptCompletion, Arguments: []any{g.ID}},
		})
	}
	return list, nil
}

// arrivedVersion is the context key of the version a pinned request's
// document had when the request arrived (methods.go, pin).
type arrivedVersion struct{}

// pinDocument notes in ctx the version of the document params name, as
// it is now, on the read loop.
func (s *Server) pinDocument(ctx context.Context, params []byte) context.Context {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ctx
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return ctx
	}
	if doc, ok := s.docs.Get(path); ok {
		return context.WithValue(ctx, arrivedVersion{}, doc.Version)
	}
	return ctx
}

// completionRequest reads p as the engine's request.
func (s *Server) completionRequest(ctx context.Context, p inlineCompletionParams) (completion.Request, error) {
	if p.TextDocument.URI == "" {
		return completion.Request{}, missingField("textDocument.uri")
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return completion.Request{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	req := completion.Request{
		Path:     path,
		Position: workspace.Position{Line: p.Position.Line, Character: p.Position.Character},
		Encoding: s.features.get().Encoding,
		Trigger:  completion.Trigger(p.Context.TriggerKind),
	}
	if v, ok := ctx.Value(arrivedVersion{}).(int32); ok {
		req.Version = &v
	}
	if sel := p.Context.SelectedCompletionInfo; sel != nil {
		req.Selected = &completion.Selected{Range: sel.Range.toWorkspace(), Text: sel.Text}
	}
	for _, d := range p.Diagnostics {
		sev := ""
		if d.Severity > 0 && d.Severity < len(severityNames) {
			sev = severityNames[d.Severity]
		}
		req.Diagnostics = append(req.Diagnostics, completion.Diagnostic{Line: d.Range.Start.Line, Severity: sev, Message: d.Message})
	}
	return req, nil
}

// completionError is what a completion request answers for err: nothing
// for a request superseded or with no model (said once in the log, not on
// every keystroke), RequestCancelled for one the client cancelled.
func completionError(ctx context.Context, err error, log *zap.Logger) error {
	switch {
	case ctx.Err() != nil:
		return jsonrpc2.NewError(codeRequestCancelled, "the completion request was cancelled")
	case errors.Is(err, completion.ErrNoModel):
		log.Debug("no completion", zap.Error(err))
		return nil
	case err != nil:
		return jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return nil
}

func fromWorkspaceRange(r workspace.Range) lspRange {
	return lspRange{
		Start: lspPosition{Line: r.Start.Line, Character: r.Start.Character},
		End:   lspPosition{Line: r.End.Line, Character: r.End.Character},
	}
}

// completionShownParams are textDocument/didShowCompletion's and
// didPartiallyAcceptCompletion's params, as Copilot's server takes them.
type completionShownParams struct {
	Item           json.RawMessage `json:"item"`
	AcceptedLength int             `json:"acceptedLength,omitempty"`
}

func (s *Server) didShowCompletion(completionShownParams) error {
	s.completion.Shown()
	return nil
}

func (s *Server) didPartiallyAcceptCompletion(completionShownParams) error {
	s.completion.PartiallyAccepted()
	return nil
}

// acceptCompletionCommand records that the user took a suggestion whole.
func (s *Server) acceptCompletionCommand(context.Context, []json.RawMessage) (nothing, error) {
	s.completion.Accepted()
	return nil, nil
}

type nextEditParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Position lspPosition `json:"position"`
}

type nextEditResult struct {
	Edits []nextEditItem `json:"edits"`
}

type nextEditItem struct {
	Range        lspRange `json:"range"`
	Text         string   `json:"text"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	Command *command `json:"command,omitempty"`
}

// nextEdit answers textDocument/copilotInlineEdit and gemini/nextEdit:
// the edits of the change the user most likely makes next, anywhere in
// the document, for the document's version.
func (s *Server) nextEdit(ctx context.Context, p nextEditParams) (nextEditResult, error) {
	if p.TextDocument.URI == "" {
		return nextEditResult{}, missingField("textDocument.uri")
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return nextEditResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	got, err := s.completion.NextEdit(ctx, completion.NextEditRequest{
		Path:     path,
		Version:  p.TextDocument.Version,
		Position: workspace.Position{Line: p.Position.Line, Character: p.Position.Character},
		Encoding: s.features.get().Encoding,
	})
	if err := completionError(ctx, err, s.log); err != nil {
		return nextEditResult{}, err
	}
	out := nextEditResult{Edits: []nextEditItem{}}
	for _, e := range got.Edits {
		item := nextEditItem{Range: fromWorkspaceRange(e.Range), Text: e.NewText}
		item.TextDocument.URI, item.TextDocument.Version = p.TextDocument.URI, got.Version
		item.Command = &command{Title: "Accept", Command: CommandAcceptCompletion, Arguments: []any{"next-edit"}}
		out.Edits = append(out.Edits, item)
	}
	return out, nil
}

// focusParams are textDocument/didFocus's: Copilot's language server
// takes {"textDocument": {"uri"}}, copilot.vim's older form {"uri"}, and
// {} when no document has the focus.
type focusParams struct {
	TextDocument *struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	URI string `json:"uri"`
}

// didFocus tells the engine which document the user is looking at: the
// documents viewed lately lend snippets to the prompts, as the documents
// edited lately do. A focus on no document, or on one that is not a
// file, is no news.
func (s *Server) didFocus(p focusParams) error {
	u := p.URI
	if p.TextDocument != nil {
		u = p.TextDocument.URI
	}
	if u == "" {
		return nil
	}
	if path, err := uriToPath(u); err == nil {
		s.completion.Focused(path)
	}
	return nil
}

// completionItemList is textDocument/completion's answer.
type completionItemList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

type completionItem struct {
	Label            string   `json:"label"`
	Kind             int      `json:"kind"`
	Detail           string   `json:"detail"`
	Documentation    *markup  `json:"documentation,omitempty"`
	SortText         string   `json:"sortText"`
	FilterText       string   `json:"filterText"`
	InsertTextFormat int      `json:"insertTextFormat"`
	TextEdit         textEdit `json:"textEdit"`
	Command          *command `json:"command,omitempty"`
}

// markup is LSP's MarkupContent: the suggestion shown whole, as code,
// where editors render plain text as Markdown anyway (Helix).
type markup struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

// completionItemKindText and insertTextFormatPlain are LSP's.
const (
	completionItemKindText = 1
	insertTextFormatPlain  = 1
)

// completionItems answers textDocument/completion, for editors without
// inline completion (inlineCompletion.completionItems): the suggestion as
// one item, always incomplete so the editor asks again as the user types.
//
// Editors filter a completion menu by the word before the cursor (Helix
// matches it against filterText, LSP clients against the text from the
// edit's start), so the item starts at that word: typing "to" with the
// suggestion "tal(prices)" gives the item "total(prices)", replacing "to".
func (s *Server) completionItems(ctx context.Context, p inlineCompletionParams) (completionItemList, error) {
	out := completionItemList{IsIncomplete: true, Items: []completionItem{}}
	req, err := s.completionRequest(ctx, p)
	if err != nil {
		return out, err
	}
	req.Trigger = completion.Automatic
	doc, open := s.docs.Get(req.Path)
	got, err := s.completion.Complete(ctx, req)
	if err := completionError(ctx, err, s.log); err != nil {
		return out, err
	}
	if now, ok := s.docs.Get(req.Path); !open || !ok || now.Version != doc.Version || now.Text != doc.Text {
		return out, nil // the word before the cursor may have changed; the editor asks again
	}
	for _, g := range got {
		if g.Range.Start == req.Position && g.Range.End == req.Position {
			word, start := wordBefore(doc.Text, req.Position, req.Encoding)
			g.Text, g.Range.Start = word+g.Text, start
		}
		label := strings.TrimSpace(g.Text)
		if i := strings.IndexByte(label, '\n'); i >= 0 {
			label = strings.TrimSpace(label[:i]) + " …"
		}
		label = ellipsis.Cut(label, 60)
		out.Items = append(out.Items, completionItem{
			Label:            label,
			Kind:             completionItemKindText,
			Detail:           "Gemini",
			Documentation:    &markup{Kind: "markdown", Value: "```" + doc.LanguageID + "\n" + g.Text + "\n```"},
			SortText:         "0",
			FilterText:       g.Text,
			InsertTextFormat: insertTextFormatPlain,
			TextEdit:         textEdit{Range: fromWorkspaceRange(g.Range), NewText: g.Text},
			Command:          &command{Title: "Accept", Command: CommandAcceptCompletion, Arguments: []any{g.ID}},
		})
	}
	return out, nil
}

// wordBefore is the word that ends at p in text (letters, digits and
// underscores, as editors' word motions take them) and where it starts.
func wordBefore(text string, p workspace.Position, enc workspace.Encoding) (string, workspace.Position) {
	at := workspace.OffsetAt(text, p, enc)
	start := at
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:start])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		start -= size
	}
	if start == at {
		return "", p
	}
	return text[start:at], workspace.PositionAt(text, start, enc)
}

// configureCompletion hands the engine what built offers: its sign-in
// and settings.
func (s *Server) configureCompletion(built *conversation.Build) {
	if built != nil {
		s.completion.SetBackend(built.Completion())
		built.ReportCompletion(s.completion.Stats)
	}
}
