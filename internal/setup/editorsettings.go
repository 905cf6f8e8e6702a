package setup

import (
	"fmt"
	"slices"
	"strings"
)

// An editor's settings (initializationOptions, didChangeConfiguration)
// are not always the user's own: Helix reads a project's
// .helix/languages.toml, Zed a project's .zed/settings.json, and both pass
// what it says to the language server. So in a folder that is not
// trusted, where the project's own .gemini/settings.json is not read,
// the editor's settings are taken only where they change how gemini-ls
// looks and which model it asks: never what runs a program (hooks, MCP
// servers, discovery commands), what runs without asking (tools.allowed,
// policies), what the sandbox confines, where data is sent (telemetry)
// or what is read (include directories). The user's ~/.gemini/settings.json
// still says all of it.

// takenInUntrusted reports whether key, a top-level key of an editor's
// settings, is taken in a folder that is not trusted: the flat model and
// approvalMode fields (which the untrusted folder already holds to the
// default mode), the model and its aliases, the look, inline completion,
// general's keys (the approval mode, checkpointing, plan mode in the
// project's temporary directory), the experimental features' switches
// and hooksConfig (which only turns hooks off). A switch: no table to
// build or change.
func takenInUntrusted(key string) bool {
	switch key {
	case "model", "approvalMode", "modelConfigs", "ui", "output", "inlineCompletion",
		"general", "contextManagement", "experimental", "hooksConfig":
		return true
	}
	return false
}

// EditorSettingsWithheld is what Options.Warn is called with, once per
// process, for the editor's settings not taken in an untrusted folder.
const EditorSettingsWithheld = "the editor's settings were not all taken in a folder that is not trusted"

// editorSettings is overlay, an editor's settings, as this workspace
// takes it: whole where every root is trusted, else only the keys
// takenInUntrusted, the user told once which were left out.
func (b *Built) editorSettings(overlay map[string]any) map[string]any {
	untrusted := b.Trust.Untrusted()
	if len(untrusted) == 0 || len(overlay) == 0 {
		return overlay
	}
	kept := make(map[string]any, len(overlay))
	var withheld []string
	for key, value := range overlay {
		if takenInUntrusted(key) {
			kept[key] = value
		} else {
			withheld = append(withheld, key)
		}
	}
	if len(withheld) > 0 {
		slices.Sort(withheld)
		if b.opts.Told.first("editor settings withheld: " + strings.Join(withheld, ",")) {
			b.opts.Warn(EditorSettingsWithheld, fmt.Errorf(
				"%s %s not used, since an editor may pass on a project's own configuration: set %s in ~/.gemini/settings.json instead, or trust the folder. %v",
				strings.Join(withheld, ", "), isAre(len(withheld)), itThem(len(withheld)), b.Trust.Why(untrusted[0])))
		}
	}
	return kept
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
