package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/discovered"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// loadSettings reads Gemini CLI's settings files for ws's roots. A file
// that cannot be used is reported to the user; the rest still apply.
func (s *Server) loadSettings(ws *workspace.Workspace) settings.Settings {
	set, err := settings.Load(s.getenv, ws.Roots())
	s.warnUser("some settings were not read", err)
	return set
}

// discoveredTools runs the settings' tool discovery command in the first
// root, once. A failure is reported to the user and adds no tools.
func (s *Server) discoveredTools(ctx context.Context, ws *workspace.Workspace, set settings.Tools) []tools.Tool {
	found, err := discovered.Discover(ctx, discovered.Config{
		DiscoveryCommand: set.DiscoveryCommand,
		CallCommand:      set.CallCommand,
		Dir:              ws.Roots()[0],
	})
	s.warnUser("tool discovery failed", err)
	return found
}

// memoryFile is the global GEMINI.md save_memory writes.
func (s *Server) memoryFile() string {
	dir := settings.UserDir(s.getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, tools.MemoryFileName)
}

// warnUser logs err, when not nil, and shows it to the user.
func (s *Server) warnUser(what string, err error) {
	if err == nil {
		return
	}
	s.log.Warn(what, zap.Error(err))
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Gemini: " + err.Error()})
}
