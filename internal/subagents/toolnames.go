package subagents

import (
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// legacyToolNames are 0.61's TOOL_LEGACY_ALIASES: old names still taken.
var legacyToolNames = []string{"search_file_content"}

var (
	mcpToolName = lazyregexp.New(`^([^_]+)_(.+)$`)
	toolSlug    = lazyregexp.New(`(?i)^[a-z0-9_.:-]+$`)
	underscores = lazyregexp.New(`^_*$`)
)

// ValidToolName is 0.61's isValidToolName (chunk-JDPZ4CE3.js:283263): a
// built-in tool, a legacy alias, a discovered tool, or an MCP tool
// "mcp_SERVER_TOOL"; with wildcards also "*", "mcp_*" and
// "mcp_SERVER_*".
func ValidToolName(name string, wildcards bool) bool {
	switch {
	case slices.Contains(tools.CLINames(), name), slices.Contains(legacyToolNames, name):
		return true
	case strings.HasPrefix(name, "discovered_tool_"):
		return true
	case wildcards && name == "*":
		return true
	case !strings.HasPrefix(name, "mcp_"):
		return false
	case name == "mcp_*":
		return wildcards
	case strings.HasPrefix(name, "mcp__"):
		return false
	}
	m := mcpToolName.FindStringSubmatch(strings.TrimPrefix(name, "mcp_"))
	if m == nil {
		return false
	}
	server, tool := m[1], m[2]
	switch {
	case !toolSlug.MatchString(server):
		return false
	case tool == "*":
		return wildcards
	case underscores.MatchString(tool):
		return false
	}
	return toolSlug.MatchString(tool)
}
