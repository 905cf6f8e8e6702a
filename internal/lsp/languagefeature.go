package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
)

// gemini/languageFeature (docs/protocol.md §9d): the server asks a client
// that declared experimental.gemini.languageFeatures what its own language
// servers say about code, for navigate_code and rename_symbol. The answer
// comes without the user, so it is a plain request, also to a client that
// takes the user's requests as notifications.

// languageFeatureWait bounds the wait for the editor's language servers,
// which may be indexing a large workspace on the first question.
const languageFeatureWait = 30 * time.Second

// codeNoServer is the error code a client answers with when it has no
// language server for the file that can answer the operation.
const codeNoServer jsonrpc2.Code = -32001

// languageFeatureParams are gemini/languageFeature's params.
type languageFeatureParams struct {
	Operation    codeintel.Op `json:"operation"`
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	// Position is omitted for the symbol listings, which ask about no
	// position.
	Position *lspPosition `json:"position,omitempty"`
	Query    string       `json:"query,omitempty"`
	NewName  string       `json:"newName,omitempty"`
}

// languageFeatures is the codeintel.Provider of a client that answers
// gemini/languageFeature: the editor's language servers.
type languageFeatures struct{ s *Server }

func (l languageFeatures) Ask(ctx context.Context, req codeintel.Request) (codeintel.Answer, error) {
	s := l.s
	enc := s.features.get().Encoding
	var params languageFeatureParams
	params.Operation = req.Op
	params.TextDocument.URI = string(uri.File(req.Path))
	// The editor knows an open document by its own URI (a Windows drive
	// letter's case), which may not be the one the path makes.
	if doc, open := s.docs.Get(req.Path); open {
		params.TextDocument.URI = doc.URI
	}
	if req.Op.Positional() {
		pos := req.ToEncoding(enc)
		params.Position = &lspPosition{Line: pos.Line, Character: pos.Character}
	}
	params.Query, params.NewName = req.Query, req.NewName

	wait, stop := context.WithTimeout(ctx, languageFeatureWait)
	defer stop()
	var result json.RawMessage
	err := s.call(wait, "gemini/languageFeature", params, &result)
	switch {
	case err == nil:
		return codeintel.Answer{Result: result, Encoding: enc, Source: "the editor's language servers"}, nil
	case ctx.Err() != nil:
		return codeintel.Answer{}, fmt.Errorf("asking the editor's language servers: %w", ctx.Err())
	case wait.Err() != nil:
		return codeintel.Answer{}, fmt.Errorf("the editor's language servers did not answer %s within %s", req.Op, languageFeatureWait)
	}
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) {
		s.log.Info("gemini/languageFeature", zap.String("operation", string(req.Op)), zap.Error(err))
		return codeintel.Answer{}, fmt.Errorf("gemini/languageFeature: %w", err)
	}
	s.log.Debug("gemini/languageFeature", zap.String("operation", string(req.Op)), zap.Error(err))
	if rpcErr.Code == codeNoServer {
		return codeintel.Answer{}, &codeintel.NoServerError{Language: req.LanguageID, File: filepath.Base(req.Path)}
	}
	// The servers' own answer (a refusal to rename), told to the model
	// word for word by the tool.
	return codeintel.Answer{}, errors.New(rpcErr.Message)
}
