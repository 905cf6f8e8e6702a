package lsp

import (
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Text document synchronisation: the editor's buffers become overlays
// that every read, list, glob and grep sees before disk.

type textDocumentItem struct {
	URI        string  `json:"uri"`
	LanguageID string  `json:"languageId"`
	Version    int32   `json:"version"`
	Text       *string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

func (r lspRange) toWorkspace() workspace.Range {
	return workspace.Range{
		Start: workspace.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   workspace.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *lspRange `json:"range"`
		Text  string    `json:"text"`
	} `json:"contentChanges"`
}

type textDocumentParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Text *string `json:"text"`
}

func (s *Server) didOpen(p didOpenParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return fmt.Errorf("didOpen: %w", err)
	}
	if p.TextDocument.Text == nil {
		return fmt.Errorf("didOpen %s: missing text", p.TextDocument.URI)
	}
	s.docs.Open(workspace.Document{
		Path:       path,
		URI:        p.TextDocument.URI,
		LanguageID: p.TextDocument.LanguageID,
		Version:    p.TextDocument.Version,
		Text:       *p.TextDocument.Text,
	})
	return nil
}

func (s *Server) didChange(p didChangeParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return fmt.Errorf("didChange: %w", err)
	}
	changes := make([]workspace.ContentChange, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i].Text = c.Text
		if c.Range != nil {
			r := c.Range.toWorkspace()
			changes[i].Range = &r
		}
	}
	enc := s.features.get().Encoding
	before, _ := s.docs.Get(path)
	if err := s.docs.Change(path, p.TextDocument.Version, changes, enc); err != nil {
		return fmt.Errorf("didChange %s: %w", p.TextDocument.URI, err)
	}
	if after, ok := s.docs.Get(path); ok && !s.agentsChange(path, after) {
		s.completion.Changed(after.Path, before.Text, after.Text)
	}
	return nil
}

// agentsChange reports whether a didChange that left the document as
// after is the agent's edit landing, not the user's typing: an edit of it
// is under way, or the editor has just synchronised one it applied on its
// word (unsynced).
func (s *Server) agentsChange(path string, after workspace.Document) bool {
	if s.landing.has(path, after.Path) {
		return true
	}
	for _, p := range []string{path, after.Path} {
		if u, ok := s.unsynced.get(p); ok && holds(after.Text, u.after) {
			return true
		}
	}
	return false
}

func (s *Server) didClose(p textDocumentParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return fmt.Errorf("didClose: %w", err)
	}
	if doc, ok := s.docs.Get(path); ok {
		s.completion.Closed(doc.Path)
	}
	s.docs.Close(path)
	return nil
}

func (s *Server) didSave(p textDocumentParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return fmt.Errorf("didSave: %w", err)
	}
	s.docs.Saved(path, p.Text)
	return nil
}
