package langclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

type textDocumentID struct {
	URI string `json:"uri"`
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type positionParams struct {
	TextDocument textDocumentID `json:"textDocument"`
	Position     lspPosition    `json:"position"`
}

type referenceParams struct {
	positionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type renameParams struct {
	positionParams
	NewName string `json:"newName"`
}

// positionalMethod is the request that answers op at a position alone.
func positionalMethod(op codeintel.Op) (string, bool) {
	switch op {
	case codeintel.Definition:
		return "textDocument/definition", true
	case codeintel.TypeDefinition:
		return "textDocument/typeDefinition", true
	case codeintel.Implementation:
		return "textDocument/implementation", true
	case codeintel.Hover:
		return "textDocument/hover", true
	}
	return "", false
}

// answer asks the server req's question about doc's file, in LSP's shapes.
func (s *server) answer(ctx context.Context, req codeintel.Request, doc docSync) (json.RawMessage, error) {
	pos := req.ToEncoding(workspace.UTF16)
	at := positionParams{
		TextDocument: textDocumentID{URI: fileURI(req.Path)},
		Position:     lspPosition{Line: pos.Line, Character: pos.Character},
	}
	switch req.Op {
	case codeintel.References:
		p := referenceParams{positionParams: at}
		p.Context.IncludeDeclaration = true
		return s.ask(ctx, "textDocument/references", p, &doc)
	case codeintel.DocumentSymbols:
		return s.ask(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": at.TextDocument}, &doc)
	case codeintel.IncomingCalls:
		return s.calls(ctx, at, doc, "callHierarchy/incomingCalls")
	case codeintel.OutgoingCalls:
		return s.calls(ctx, at, doc, "callHierarchy/outgoingCalls")
	case codeintel.Rename:
		return s.rename(ctx, at, doc, req.NewName)
	}
	method, ok := positionalMethod(req.Op)
	if !ok {
		return nil, fmt.Errorf("%w %q", codeintel.ErrUnknownOp, req.Op)
	}
	return s.ask(ctx, method, at, &doc)
}

// calls are the call hierarchy's calls (method) of every item the server
// prepares at the position, in one array.
func (s *server) calls(ctx context.Context, at positionParams, doc docSync, method string) (json.RawMessage, error) {
	raw, err := s.ask(ctx, "textDocument/prepareCallHierarchy", at, &doc)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("reading %s's answer to textDocument/prepareCallHierarchy: %w", s.spec.name, err)
	}
	if len(items) == 0 {
		return json.RawMessage("null"), nil
	}
	var all []json.RawMessage
	for _, item := range items {
		raw, err := s.ask(ctx, method, map[string]json.RawMessage{"item": item}, nil)
		if err != nil {
			return nil, err
		}
		calls, err := jsonArray(raw)
		if err != nil {
			return nil, fmt.Errorf("reading %s's answer to %s: %w", s.spec.name, method, err)
		}
		all = append(all, calls...)
	}
	return marshalArray(all), nil
}

// rename is the server's WorkspaceEdit renaming the symbol at the
// position, once the server, when it can, said a rename may start there.
func (s *server) rename(ctx context.Context, at positionParams, doc docSync, newName string) (json.RawMessage, error) {
	if s.prepareRename {
		raw, err := s.ask(ctx, "textDocument/prepareRename", at, &doc)
		var rerr *rpcError
		switch {
		case errors.As(err, &rerr):
			return nil, fmt.Errorf("the language server refused to rename here: %s", rerr.Message)
		case err != nil:
			return nil, err
		case isNull(raw):
			return nil, fmt.Errorf("the language server refused to rename here: %s finds no symbol it can rename at that position", s.spec.name)
		}
	}
	raw, err := s.ask(ctx, "textDocument/rename", renameParams{positionParams: at, NewName: newName}, &doc)
	var rerr *rpcError
	if errors.As(err, &rerr) {
		return nil, fmt.Errorf("the language server refused the rename: %s", rerr.Message)
	}
	return raw, err
}

func isNull(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t == "" || t == "null"
}

// jsonArray is raw's elements; none for null.
func jsonArray(raw json.RawMessage) ([]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var elems []json.RawMessage
	err := json.Unmarshal(raw, &elems)
	return elems, err
}

func marshalArray(elems []json.RawMessage) json.RawMessage {
	if elems == nil {
		elems = []json.RawMessage{}
	}
	raw, _ := json.Marshal(elems) // raw messages the servers sent, valid JSON
	return raw
}

// workspaceSymbols asks every server running in the root req.Path for
// req.Query's symbols, in one array. Where none runs, it starts those
// whose own root markers (not .git alone) are at the root: one per
// filetype.
func (m *Manager) workspaceSymbols(ctx context.Context, req codeintel.Request) (codeintel.Answer, error) {
	// The root is named, or a file in it.
	root := req.Path
	if isDir, err := m.ws.Stat(root); err == nil && !isDir {
		if root = m.ws.RootOf(req.Path); root == "" {
			root = filepath.Dir(req.Path)
		}
	}
	srvs := m.runningIn(root, req.LanguageID)
	if len(srvs) == 0 {
		var err error
		if srvs, err = m.startAt(ctx, root, req.LanguageID, req.Ask); err != nil {
			return codeintel.Answer{}, err
		}
	}
	var all []json.RawMessage
	var sources []string
	var errs []error
	var caveats []string
	for _, srv := range srvs {
		caveat, err := srv.waitIdle(ctx, m.indexWait, m.progressStale)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		raw, err := srv.ask(ctx, "workspace/symbol", map[string]string{"query": req.Query}, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		symbols, err := jsonArray(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s's answer to workspace/symbol: %w", srv.spec.name, err))
			continue
		}
		all = append(all, symbols...)
		if caveat != "" {
			caveats = append(caveats, caveat)
		}
		if !slices.Contains(sources, srv.spec.name) {
			sources = append(sources, srv.spec.name)
		}
	}
	if len(sources) == 0 {
		return codeintel.Answer{}, errors.Join(errs...)
	}
	for _, err := range errs {
		m.log.Info("a language server did not list workspace symbols", zap.Error(err))
	}
	return codeintel.Answer{Result: marshalArray(all), Encoding: workspace.UTF16, Source: strings.Join(sources, ", "), Caveat: strings.Join(caveats, " ")}, nil
}

// startAt starts, for workspaceSymbols, the servers whose markers are at
// root and whose commands are on PATH, no two for one filetype.
func (m *Manager) startAt(ctx context.Context, root, languageID string, ask spawn.Ask) ([]*server, error) {
	var srvs []*server
	var served []string
	var errs []error
	for _, s := range m.specs {
		if languageID != "" && !slices.Contains(s.filetypes, languageID) {
			continue
		}
		if slices.ContainsFunc(s.filetypes, func(ft string) bool { return slices.Contains(served, ft) }) || !s.hasOwnMarker(root) {
			continue
		}
		cmdPath, err := m.lookPath(s)
		if err != nil {
			continue
		}
		srv, err := m.server(ctx, s, cmdPath, root, ask)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		srvs = append(srvs, srv)
		served = append(served, s.filetypes...)
	}
	if len(srvs) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(srvs) == 0 {
		language := "this workspace's"
		if name, ok := nameOfFiletype(languageID); ok {
			language = name
		}
		return nil, &codeintel.NoServerError{Language: language}
	}
	return srvs, nil
}
