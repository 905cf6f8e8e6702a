package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// gemini/diagnostics: the server asks a client that declared
// experimental.gemini.diagnostics for the diagnostics it shows, which
// its other language servers and linters published to it, for
// get_diagnostics and for the errors an edit brought (dialog.DiagnosticsReader).
// The answer comes at once, without the user, so it is a plain request,
// also to a client that takes the user's requests as notifications.

// diagnosticsParams are gemini/diagnostics' params: the files asked
// about, or none for every file the client has diagnostics for.
type diagnosticsParams struct {
	URIs []string `json:"uris,omitempty"`
}

// diagnosticsResult is gemini/diagnostics' result.
type diagnosticsResult struct {
	Items []struct {
		URI         string       `json:"uri"`
		Diagnostics []diagnostic `json:"diagnostics"`
		// Pending: a language server has not yet published diagnostics
		// of the text the client holds now.
		Pending bool `json:"pending"`
	} `json:"items"`
}

// diagnosticsReader is the dialog.DiagnosticsReader of a client that
// answers gemini/diagnostics.
type diagnosticsReader struct{ s *Server }

func (r diagnosticsReader) Diagnostics(ctx context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	var params diagnosticsParams
	for _, p := range paths {
		params.URIs = append(params.URIs, string(uri.File(p)))
	}
	var res diagnosticsResult
	if err := r.s.call(ctx, "gemini/diagnostics", params, &res); err != nil {
		r.s.log.Info("gemini/diagnostics", zap.Error(err))
		return nil, fmt.Errorf("gemini/diagnostics: %w", err)
	}
	files := make([]dialog.FileDiagnostics, 0, len(res.Items))
	for _, item := range res.Items {
		path, err := uriToPath(item.URI)
		if err != nil {
			// Diagnostics of what is no file (an untitled buffer) are of
			// nothing the model can read.
			r.s.log.Debug("gemini/diagnostics of no file", zap.String("uri", item.URI))
			continue
		}
		f := dialog.FileDiagnostics{Path: path, Pending: item.Pending}
		for _, d := range item.Diagnostics {
			f.Diagnostics = append(f.Diagnostics, d.toTool())
		}
		files = append(files, f)
	}
	return files, nil
}

// toTool is d as the tools tell it: 1-based, the column in the
// connection's position encoding.
func (d diagnostic) toTool() dialog.EditorDiagnostic {
	a := d.toAgent()
	return dialog.EditorDiagnostic{Line: a.Start.Line, Column: a.Start.Character, Severity: a.Severity, Message: a.Message, Source: a.Source, Code: a.Code}
}
