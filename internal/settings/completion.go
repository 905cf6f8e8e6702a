package settings

import "time"

// InlineCompletion is gemini-ls's own "inlineCompletion" object: code
// completion as the user types (textDocument/inlineCompletion) and next
// edit suggestions (gemini/nextEdit). Gemini CLI has no such key.
type InlineCompletion struct {
	// Enabled turns completion on; on unless false.
	Enabled *bool `json:"enabled"`
	// Languages turns it on or off per LSP language id ("go", "python");
	// "*" stands for every language not named. A language not named,
	// with no "*", is on.
	Languages map[string]bool `json:"languages"`
	// DebounceMs is how long the server waits, for a request the editor
	// made as the user typed (never one the user asked for), before it
	// calls the model, 0 for not at all; when unset, the server adapts it
	// to the user's typing (package completion's rhythm).
	DebounceMs *int `json:"debounceMs"`
	// Model is the model completions are asked of; Gemini CLI 0.61's
	// prompt-completion model (its flash-lite) when empty.
	Model string `json:"model"`
	// Exclude are more files that never leave the machine, as globs
	// ("**/secrets/**"), matched against the path relative to its
	// workspace root.
	Exclude []string `json:"exclude"`
	// NextEdit turns gemini/nextEdit on; on unless false.
	NextEdit *bool `json:"nextEdit"`
	// CompletionItems offers each suggestion as a textDocument/completion
	// item too, for editors without inline completion (Helix); off
	// unless true.
	CompletionItems bool `json:"completionItems"`
}

// On reports whether completion is on for languageID.
func (c InlineCompletion) On(languageID string) bool {
	if c.Enabled != nil && !*c.Enabled {
		return false
	}
	if on, ok := c.Languages[languageID]; ok {
		return on
	}
	if on, ok := c.Languages["*"]; ok {
		return on
	}
	return true
}

// NextEditOn reports whether next edit suggestions are on.
func (c InlineCompletion) NextEditOn() bool {
	return (c.Enabled == nil || *c.Enabled) && (c.NextEdit == nil || *c.NextEdit)
}

// Debounce is DebounceMs as a duration (never negative), and whether
// it is set; unset, the server adapts the debounce to the user's typing.
func (c InlineCompletion) Debounce() (time.Duration, bool) {
	if c.DebounceMs == nil {
		return 0, false
	}
	return time.Duration(max(*c.DebounceMs, 0)) * time.Millisecond, true
}
