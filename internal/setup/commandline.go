package setup

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// commandLine is set with the command line's choices in place of the
// settings', as Gemini CLI 0.61's loadCliConfig puts its flags first, and
// the MCP servers mcp.allowed and mcp.excluded leave out removed.
func (o Options) commandLine(set settings.Settings) settings.Settings {
	if len(o.AllowedTools) > 0 {
		set.Tools.Allowed = o.AllowedTools
	}
	if len(o.AllowedMCPServers) > 0 {
		set.MCP = settings.MCP{Allowed: o.AllowedMCPServers}
	}
	servers := maps.Clone(set.MCPServers)
	maps.DeleteFunc(servers, func(name string, _ settings.MCPServer) bool { return !set.MCP.Keep(name) })
	set.MCPServers = servers
	return set
}

// notInstalled says which of names (-e) names no extension of loaded, as
// Gemini CLI says "Extension not found".
func notInstalled(names []string, loaded extensions.Loaded) []error {
	var out []error
	for _, n := range names {
		if strings.EqualFold(n, "none") {
			continue
		}
		if !slices.ContainsFunc(loaded.All, func(e extensions.Extension) bool { return strings.EqualFold(e.Name, n) }) {
			out = append(out, fmt.Errorf("Extension not found: %s", n))
		}
	}
	return out
}
