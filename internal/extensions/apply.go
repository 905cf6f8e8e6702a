package extensions

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Apply is set with what the enabled extensions add to it: their MCP
// servers under mcpServers, and their excludeTools under tools.exclude.
// What variables gave their manifests and their settings' values are
// hidden from messages as the settings' own (settings.Settings.Redact).
// A server of a name settings already have is left out (settings.json
// wins, as Gemini CLI documents), and so is one a former extension (by
// name) already gave; notes say which, and which excludeTools entries are
// not applied. set itself is not changed.
func (l Loaded) Apply(set settings.Settings) (out settings.Settings, notes []error) {
	out = set
	servers := maps.Clone(set.MCPServers)
	from := map[string]string{} // server name → the extension that gave it
	for _, e := range l.Active() {
		for _, name := range slices.Sorted(maps.Keys(e.MCPServers)) {
			if _, taken := servers[name]; taken {
				if owner := from[name]; owner != "" {
					notes = append(notes, fmt.Errorf("extension %s: its MCP server %q is skipped: extension %s already has one of that name", e.Name, name, owner))
				} else {
					notes = append(notes, fmt.Errorf("extension %s: its MCP server %q is not used: mcpServers in the settings has one of that name, which wins", e.Name, name))
				}
				continue
			}
			if servers == nil {
				servers = map[string]settings.MCPServer{}
			}
			servers[name] = e.MCPServers[name]
			from[name] = e.Name
		}
		for _, tool := range e.ExcludeTools {
			if strings.Contains(tool, "(") {
				notes = append(notes, fmt.Errorf("extension %s: excludeTools %q is not applied: gemini-ls excludes whole tools, not some of their commands", e.Name, tool))
				continue
			}
			if !slices.Contains(out.Tools.Exclude, tool) {
				out.Tools.Exclude = append(slices.Clip(out.Tools.Exclude), tool)
			}
		}
	}
	out.MCPServers = servers
	for _, e := range l.Active() {
		out = out.WithRedacted(e.Redacted)
		secrets := map[string]string{}
		for name, v := range e.SettingsEnv {
			secrets[v] = name
		}
		out = out.WithRedacted(secrets)
	}
	return out, notes
}

// ServerOwner is the enabled extension whose MCP server is the one
// called name that is in use (used, from the settings Apply made); ""
// when it is another's (the settings', a client's).
func (l Loaded) ServerOwner(name string, used settings.MCPServer) string {
	for _, e := range l.Active() {
		if s, ok := e.MCPServers[name]; ok && reflect.DeepEqual(s, used) {
			return e.Name
		}
	}
	return ""
}
