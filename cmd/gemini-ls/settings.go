package main

import (
	"context"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/discovered"
)

// loadSettings reads Gemini CLI's settings files for the root. A file that
// cannot be used is logged (a warning, shown on stderr); the rest apply.
func loadSettings(getenv settings.Getenv, root string, log *zap.Logger) settings.Settings {
	set, err := settings.Load(getenv, []string{root})
	if err != nil {
		log.Warn("some settings were not read", zap.Error(err))
	}
	return set
}

// discoveredTools runs the settings' tool discovery command in the root,
// once. A failure is logged and adds no tools.
func discoveredTools(ctx context.Context, set settings.Tools, root string, log *zap.Logger) []tools.Tool {
	found, err := discovered.Discover(ctx, discovered.Config{
		DiscoveryCommand: set.DiscoveryCommand,
		CallCommand:      set.CallCommand,
		Dir:              root,
	})
	if err != nil {
		log.Warn("tool discovery failed", zap.Error(err))
	}
	return found
}

// memoryFile is the global GEMINI.md save_memory writes.
func memoryFile(getenv settings.Getenv) string {
	dir := settings.UserDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, tools.MemoryFileName)
}
