package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// showAuthURL tells the user to sign in to an MCP server: a message with
// the URL (to copy when no browser opens), and, when the editor can open
// documents, the page in the user's browser (window/showDocument external).
func (s *Server) showAuthURL(server, authURL string) {
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: "Gemini: MCP server '" + server + "' requires authentication. Sign in in your browser: " + authURL})
	if !s.features.get().ShowDocument {
		return
	}
	go func() {
		external := true
		var res protocol.ShowDocumentResult
		if err := s.call(context.Background(), "window/showDocument", &protocol.ShowDocumentParams{URI: uri.URI(authURL), External: &external}, &res); err != nil {
			s.log.Info("window/showDocument of a sign-in page", zap.Error(err))
		}
	}()
}
