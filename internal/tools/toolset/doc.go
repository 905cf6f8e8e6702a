// Package toolset assembles the tools a session offers: the built-in ones
// over the workspace, and those the user's settings bring — tools found by
// tools.discoveryCommand and the tools of the MCP servers under
// mcpServers — less what tools.core and tools.exclude leave out
// (filter.go). Both front ends build their tools here, so the same
// settings give the same tools whatever the editor or the command line.
// ParseAllowed turns tools.allowed into the approval keys the tools'
// confirmations carry, for the approval service.
//
// Invariants: a part that cannot be set up (a failing discovery command, an
// MCP server that does not start) is reported once through Config.Warn or
// the MCP package's log and leaves the rest working, never showing what a
// settings variable held (settings.Settings.Redact); no MCP server starts
// in an untrusted folder (Config.NotTrusted); every process a Set started
// ends with Close.
package toolset
