package toolset

import (
	"context"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/discovered"
	"github.com/gemini-ls/gemini-ls/tools/mcp"
)

// Config is what a session's tools are made of.
type Config struct {
	// Tools configures the built-in tools; Build adds what the settings
	// and the user's directory decide (MemoryFile, DisableLLMCorrection).
	Tools    tools.Options
	Settings settings.Settings
	// Getenv finds the user's directory, where save_memory writes.
	Getenv  settings.Getenv
	Version string
	// Logger receives the MCP servers' warnings (which the LSP mirrors to
	// the editor).
	Logger *zap.Logger
	// Warn tells the user that part of the tools could not be set up.
	Warn func(what string, err error)
}

// Set is a session's tools and the servers behind some of them.
type Set struct {
	Registry *tools.Registry
	mcp      *mcp.Manager // nil without MCP servers
}

// Build makes the tools: the built-in ones, the discovered ones (the
// discovery command runs once, in the first root) and the MCP servers',
// which are started in the background and join the registry as each lists
// its tools.
func Build(ctx context.Context, c Config) *Set {
	opts := c.Tools
	opts.DisableLLMCorrection = c.Settings.Tools.DisableLLMCorrection
	if dir := settings.UserDir(c.Getenv); dir != "" {
		opts.MemoryFile = filepath.Join(dir, tools.MemoryFileName)
	}
	root := opts.Workspace.Roots()[0]
	found, err := discovered.Discover(ctx, discovered.Config{
		DiscoveryCommand: c.Settings.Tools.DiscoveryCommand,
		CallCommand:      c.Settings.Tools.CallCommand,
		Dir:              root,
	})
	if err != nil && c.Warn != nil {
		c.Warn("tool discovery failed", err)
	}
	set := &Set{Registry: tools.NewRegistry(append(tools.Builtin(opts), found...)...)}
	if len(c.Settings.MCPServers) > 0 {
		set.mcp = mcp.Start(mcp.Config{Servers: c.Settings.MCPServers, Dir: root, Reserved: set.Registry.Names(), Logger: c.Logger, Version: c.Version})
		set.Registry.AddSource(set.mcp)
	}
	return set
}

// WaitForServers waits until every MCP server has listed its tools or
// failed (each bounded by its timeout), or ctx ends: for a single headless
// prompt, which should see them all, as in Gemini CLI.
func (s *Set) WaitForServers(ctx context.Context) error {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.Wait(ctx)
}

// Close ends every MCP server process. It is safe on a nil Set.
func (s *Set) Close() {
	if s != nil && s.mcp != nil {
		s.mcp.Close()
	}
}
