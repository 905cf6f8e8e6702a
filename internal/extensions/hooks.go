package extensions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Hooks are the hooks the extension's hooks/hooks.json declares, as
// Gemini CLI loads them (loadExtensionHooks): the file's "hooks" object,
// each string with ${extensionPath}, ${workspacePath}, ${/} and the
// extension's settings (${ENV_VAR}) filled in. No file is no hooks; a
// file that cannot be read or is not such an object is an error naming
// it, and gives none.
func (e Extension) Hooks() (settings.Hooks, error) {
	path := e.HooksFile()
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("extension %q: reading its hooks, %s: %w", e.Name, path, err)
	}
	var raw struct {
		Hooks map[string]any `json:"hooks"`
	}
	if err := jsjson.Decode(data, &raw); err != nil || raw.Hooks == nil {
		return nil, fmt.Errorf("extension %q: invalid hooks configuration in %s: \"hooks\" property must be an object", e.Name, path)
	}
	hydrated, err := json.Marshal(walkStrings(map[string]any(raw.Hooks), e.Hydrate))
	if err != nil {
		return nil, fmt.Errorf("extension %q: its hooks: %w", e.Name, err)
	}
	var hooks settings.Hooks
	if err := jsjson.Decode(hydrated, &hooks); err != nil {
		return nil, fmt.Errorf("extension %q: invalid hooks configuration in %s: %w", e.Name, path, err)
	}
	return hooks, nil
}

// Hydrate fills ${extensionPath}, ${workspacePath}, ${/} and the
// extension's settings (${ENV_VAR}) into s, as Gemini CLI's
// recursivelyHydrateStrings does for what an extension gives besides its
// manifest: its hooks and its skills.
func (e Extension) Hydrate(s string) string {
	vars := maps.Clone(e.Variables)
	if vars == nil {
		vars = Variables{}
	}
	for k, v := range e.SettingsEnv {
		if _, taken := vars[k]; !taken {
			vars[k] = v
		}
	}
	return vars.Hydrate(s)
}
