package toolset

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// Allowance is what tools.allowed lets run without asking, in the terms
// the tools' confirmations use.
type Allowance struct {
	// Tools are tools every call of which runs without asking, by the name
	// the model calls them (run_shell_command, replace, write_file,
	// web_fetch, a discovered tool's name…).
	Tools []string
	// Keys are approval keys as tools.Confirmation.AllowKeys carries them:
	// a shell command's name ("git"), "mcp:SERVER:TOOL".
	Keys []string
	// Unsupported are the entries that allow nothing, each saying why.
	Unsupported []error
}

// toolCall is Gemini CLI's TOOL(ARGS) entry (policy/config.ts).
var toolCall = lazyregexp.New(`^([a-zA-Z0-9_-]+)\((.*)\)$`)

// ParseAllowed turns tools.allowed entries, as Gemini CLI writes them, into
// an Allowance; servers are the configured MCP servers, which name an MCP
// tool's server in mcp_SERVER_TOOL.
//
//   - run_shell_command (or ShellTool): every shell command.
//   - run_shell_command(git): every command line whose commands are all git,
//     as "Always allow" for git does. A longer prefix
//     (run_shell_command(git status)) is unsupported: gemini-ls remembers
//     shell commands by name only, and allowing all of git would allow more
//     than the user wrote.
//   - a built-in tool's name or Gemini CLI class name (EditTool), with or
//     without (…): that tool.
//   - mcp_SERVER_TOOL or SERVER__TOOL for a configured server: that tool of
//     that server; mcp_SERVER_* is unsupported (trust the server instead).
//   - any other name (discovered_tool_NAME for a discovered tool): the tool
//     of that name.
func ParseAllowed(entries []string, servers map[string]settings.MCPServer) Allowance {
	var a Allowance
	canonical := map[string]string{}
	for _, t := range everyBuiltin() {
		for _, n := range builtinNames(t) {
			canonical[n] = t.Name()
		}
	}
	// Longest alias first, so mcp_a_b_tool finds server "a_b" before "a".
	aliases := slices.SortedFunc(maps.Keys(servers), func(x, y string) int { return cmp.Compare(len(y), len(x)) })
	for _, entry := range entries {
		entry = strings.TrimSpace(entry)
		name, args, hasArgs := entry, "", false
		if m := toolCall.FindStringSubmatch(entry); m != nil {
			name, args, hasArgs = m[1], strings.TrimSpace(m[2]), true
		}
		if c, ok := canonical[name]; ok {
			name = c
		}
		switch {
		case name == tools.ShellName && hasArgs:
			if words := strings.Fields(args); len(words) == 1 && !tools.IsShellKey(words[0]) {
				a.Unsupported = append(a.Unsupported, fmt.Errorf("tools.allowed %q: %s is named as gemini-ls names other approvals (file edits, MCP tools), so this entry allows nothing", entry, words[0]))
			} else if len(words) == 1 {
				a.Keys = append(a.Keys, words[0])
			} else {
				a.Unsupported = append(a.Unsupported, fmt.Errorf("tools.allowed %q: gemini-ls allows shell commands by their name only (run_shell_command(%s)), so this entry allows nothing", entry, firstWord(args)))
			}
			continue
		case canonical[name] != "":
			a.Tools = append(a.Tools, name)
			continue
		}
		if server, tool, ok := mcpEntry(name, aliases); ok {
			if tool == "*" {
				a.Unsupported = append(a.Unsupported, fmt.Errorf(`tools.allowed %q: allowing every tool of a server is not supported; set "trust": true on the server %q instead`, entry, server))
			} else {
				a.Keys = append(a.Keys, "mcp:"+server+":"+tool)
			}
			continue
		}
		a.Tools = append(a.Tools, name)
	}
	return a
}

// everyBuiltin is every built-in tool, plan mode's, activate_skill and
// the tracker's among them, for the names settings may give them; none
// of them runs.
func everyBuiltin() []tools.Tool {
	noDir := func(string) (string, error) { return "", errors.New("no session") }
	return tools.Builtin(tools.Options{Plan: tools.PlanOptions{Enabled: true}, Skills: &skills.Catalog{}, Tracker: noDir})
}

// mcpEntry splits mcp_SERVER_TOOL or SERVER__TOOL for a configured server.
func mcpEntry(name string, aliases []string) (server, tool string, ok bool) {
	for _, alias := range aliases {
		for _, prefix := range []string{"mcp_" + alias + "_", alias + "__"} {
			if rest, found := strings.CutPrefix(name, prefix); found && rest != "" {
				return alias, rest, true
			}
		}
	}
	return "", "", false
}

func firstWord(s string) string {
	if words := strings.Fields(s); len(words) > 0 {
		return words[0]
	}
	return s
}
