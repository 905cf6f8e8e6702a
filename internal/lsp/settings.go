package lsp

import (
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// warnUser logs err, when not nil, and shows it to the user.
func (s *Server) warnUser(what string, err error) {
	if err == nil {
		return
	}
	s.log.Warn(what, zap.Error(err))
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Gemini: " + err.Error()})
}
