package subagents

import (
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/extensions"
)

// ExtensionAgents are the agents directories of exts, the active
// extensions: each one's agents/, its variables filled into its agents'
// strings, as 0.61's extension loader reads them (chunk-4GP6HFBO.js:65948).
func ExtensionAgents(exts []extensions.Extension) []ExtensionDir {
	out := make([]ExtensionDir, 0, len(exts))
	for _, e := range exts {
		out = append(out, ExtensionDir{Extension: e.Name, Dir: filepath.Join(e.Path, "agents"), Hydrate: e.Variables.Hydrate})
	}
	return out
}
