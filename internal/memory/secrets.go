package memory

import (
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// secretName reports the files of a Gemini directory that hold
// credentials or identifiers without a .json name.
func secretName(base string) bool { return base == "installation_id" || base == "user_id" }

// guard decides which files may reach the model as context: never one
// that holds credentials or settings, whoever names it (an import, or a
// context.fileName). Everything else of a Gemini directory is such a file
// unless it is Markdown or a configured context file name: the directory
// holds oauth_creds.json, google_accounts.json, settings.json,
// mcp-oauth-tokens.json, trustedFolders.json, installation_id, .env and
// whatever later versions add, so it is allowed by name, not refused by
// name. A .env file is refused wherever it is.
type guard struct {
	userDirs []string        // the user's Gemini directory, as configured and resolved
	names    map[string]bool // the base names of the configured context files
}

func newGuard(userDir string, names []string) guard {
	g := guard{names: make(map[string]bool)}
	if userDir != "" {
		g.userDirs = append(g.userDirs, userDir)
		if real, err := filepath.EvalSymlinks(userDir); err == nil && real != userDir {
			g.userDirs = append(g.userDirs, real)
		}
	}
	for _, n := range names {
		g.names[filepath.Base(n)] = true
	}
	return g
}

// refuses reports whether the file at path (absolute), or the file its
// symlinks lead to, holds credentials or settings.
func (g guard) refuses(path string) bool {
	path = filepath.Clean(path)
	if g.secret(path) {
		return true
	}
	real, err := filepath.EvalSymlinks(path)
	return err == nil && real != path && g.secret(real)
}

// secret judges path by its name and where it is, not following links.
func (g guard) secret(path string) bool {
	base := filepath.Base(path)
	// Lower case: on a case-insensitive disk ".ENV" is the .env file.
	if lower := strings.ToLower(base); lower == ".env" || strings.HasPrefix(lower, ".env.") {
		return true
	}
	if !g.inGeminiDir(path) {
		return false
	}
	ext := strings.ToLower(filepath.Ext(base))
	if ext == ".md" || ext == ".markdown" {
		return false
	}
	return !g.names[base] || ext == ".json" || secretName(base)
}

// inGeminiDir reports whether path is below the user's Gemini directory
// or any directory named .gemini.
func (g guard) inGeminiDir(path string) bool {
	for _, d := range g.userDirs {
		if workspace.Within(d, path) && !workspace.Within(path, d) {
			return true
		}
	}
	for _, part := range strings.Split(filepath.Dir(path), string(filepath.Separator)) {
		if strings.EqualFold(part, configfiles.Gemini) {
			return true
		}
	}
	return false
}
