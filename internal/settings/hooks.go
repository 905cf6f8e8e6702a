package settings

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// HookEvents are the events of Gemini CLI's hooks, the keys of "hooks".
var HookEvents = []string{
	"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd",
	"BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification",
}

// hooksConfigKeys are keys of "hooks" that are not events: where Gemini
// CLI once kept what is now "hooksConfig", skipped as it skips them.
var hooksConfigKeys = []string{"enabled", "disabled", "notifications"}

// Hooks is "hooks": each event's hook definitions. The layers' lists of
// an event are joined, as Gemini CLI concatenates them (merge.go).
type Hooks map[string][]HookDefinition

// HookDefinition is one entry of an event's list: the hooks that run
// when Matcher matches.
type HookDefinition struct {
	// Matcher is a regular expression on the tool name for the tool
	// events, the exact trigger (such as "startup") for the others; ""
	// or "*" matches everything.
	Matcher string `json:"matcher"`
	// Sequential runs the event's hooks one after another, each seeing
	// what the ones before it changed, instead of all at once.
	Sequential bool          `json:"sequential"`
	Hooks      []HookCommand `json:"hooks"`
}

// HookCommand is one hook: a shell command.
type HookCommand struct {
	// Type is "command", the only kind Gemini CLI runs from settings.
	Type    string `json:"type"`
	Command string `json:"command"`
	// Name identifies the hook to the user and to hooksConfig.disabled;
	// the command does when it is unset.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Timeout is in milliseconds; Gemini CLI's 60000 when 0.
	Timeout float64 `json:"timeout"`
}

// UnmarshalJSON reads "hooks", skipping the keys that are not events.
func (h *Hooks) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("hooks must be an object of events: %w", err)
	}
	out := Hooks{}
	for event, list := range raw {
		if slices.Contains(hooksConfigKeys, event) {
			continue
		}
		var defs []HookDefinition
		if err := jsjson.Decode(list, &defs); err != nil {
			return fmt.Errorf("hooks.%s must be an array of {matcher, hooks: [{type, command, name, timeout}]}: %w", event, err)
		}
		out[event] = defs
	}
	*h = out
	return nil
}

// ProjectHooks are the hooks a workspace root's .gemini/settings.json
// sets, which Hooks holds among the others' (a root's counting only when
// its folder is trusted).
type ProjectHooks struct {
	Root  string
	Hooks Hooks
}

// ProjectHooks are the trusted workspace roots' own hooks, in the roots'
// order: the ones Gemini CLI fingerprints, to warn of those not seen
// before (hooks.NoteProjectHooks).
func (s Settings) ProjectHooks() []ProjectHooks { return slices.Clone(s.projectHooks) }

// layerHooks are the hooks of one settings file's object; none when it
// sets none, or they cannot be read (the file's check has said why).
func layerHooks(layer map[string]any) Hooks {
	raw, ok := layer["hooks"]
	if !ok {
		return nil
	}
	var out struct {
		Hooks Hooks `json:"hooks"`
	}
	if fromMap(map[string]any{"hooks": raw}, &out) != nil {
		return nil
	}
	return out.Hooks
}

// HooksConfig is "hooksConfig".
type HooksConfig struct {
	// Enabled runs the hooks; on unless false, as in Gemini CLI.
	Enabled *bool `json:"enabled"`
	// Disabled are hooks (by name, else command) that do not run. Merged
	// across files as a union, as in Gemini CLI.
	Disabled []string `json:"disabled"`
	// (notifications, 0.61's sign that hooks are running, is not read:
	// gemini-ls shows what they say and how they fail, not that they run.)
}

// HooksEnabled reports whether hooks run.
func (c HooksConfig) HooksEnabled() bool { return c.Enabled == nil || *c.Enabled }
