package lsp

import (
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// configurationSections are the keys under which a client may send
// gemini-ls's settings in workspace/didChangeConfiguration, as editors
// scope settings by server ({"gemini": {…}}); otherwise the settings
// object is taken whole.
var configurationSections = []string{"gemini-ls", "gemini"}

// configurationParams are workspace/didChangeConfiguration's params.
type configurationParams struct {
	Settings any `json:"settings"`
}

// didChangeConfiguration reads the settings again with the client's over
// them, applies what can change at once (the model, the approval mode),
// and tells the user what waits for a restart. Settings that cannot be
// used are shown and change nothing.
func (s *Server) didChangeConfiguration(p configurationParams) error {
	change, _ := p.Settings.(map[string]any)
	for _, section := range configurationSections {
		if sub, ok := change[section].(map[string]any); ok {
			change = sub
			break
		}
	}
	built := s.agentState.setup()
	if built == nil {
		return nil
	}
	applied, restart, err := built.Reload(change)
	if errors.Is(err, conversation.ErrOverlay) {
		s.warnUser("didChangeConfiguration", fmt.Errorf("the new settings were not applied: %w", err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("reloading settings: %w", err)
	}
	s.configureCompletion(built)
	if len(applied) > 0 {
		s.log.Info("settings applied", zap.Strings("changes", applied))
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Gemini: now using " + strings.Join(applied, " and ") + "."})
	}
	if len(restart) > 0 {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: "Gemini: the changes to " + strings.Join(restart, ", ") + " take effect when gemini-ls restarts."})
	}
	return nil
}
