package setup

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A hook that cannot run is reported when the agent is built, and a
// change of the hooks while running says it needs a restart.
func TestHooksAreCheckedAndNeedARestart(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A trusted folder: in another, the editor's hooks are not taken.
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	var warnings []string
	b, err := Build(context.Background(), Options{
		Workspace: ws,
		Getenv:    func(k string) string { return env[k] },
		Warn:      func(what string, err error) { warnings = append(warnings, what+": "+err.Error()) },
		Overlay: map[string]any{"hooks": map[string]any{
			"BeforeTool": []any{map[string]any{"hooks": []any{map[string]any{"type": "command"}}}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "a hook does not run: hooks from settings: a BeforeTool hook has no command") {
		t.Errorf("warnings = %q", warnings)
	}
	_, restart, err := b.Reload(map[string]any{"hooksConfig": map[string]any{"enabled": false}})
	if err != nil || !slices.Contains(restart, "hooks") {
		t.Errorf("Reload's restart = %q, %v", restart, err)
	}
}

// hooksConfig.disabled applies without a restart: from a client's
// change of settings (Reload), and from the settings files read again
// (ReloadHooks, /hooks's), after which a Reload sees nothing to restart.
func TestHooksDisabledAppliesAtOnce(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	userFile := filepath.Join(home, ".gemini", "settings.json")
	writeFile(t, userFile, `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "name": "h", "command": "true"}]}]}}`)
	b, err := Build(context.Background(), Options{Workspace: ws, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Hooks.Handles("BeforeAgent") {
		t.Fatal("the hook does not run")
	}
	applied, restart, err := b.Reload(map[string]any{"hooksConfig": map[string]any{"disabled": []any{"h"}}})
	if err != nil || !slices.Equal(applied, []string{"hooksConfig.disabled"}) || len(restart) != 0 || b.Hooks.Handles("BeforeAgent") {
		t.Errorf("Reload disabling h: applied %q, restart %q, %v; the hook runs: %v", applied, restart, err, b.Hooks.Handles("BeforeAgent"))
	}
	if _, _, err := b.Reload(nil); err != nil || !b.Hooks.Handles("BeforeAgent") {
		t.Errorf("Reload without the change: %v; the hook runs: %v", err, b.Hooks.Handles("BeforeAgent"))
	}

	writeFile(t, userFile, `{"hooksConfig": {"disabled": ["h"]}, "hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "name": "h", "command": "true"}]}]}}`)
	if err := b.ReloadHooks(); err != nil || b.Hooks.Handles("BeforeAgent") {
		t.Errorf("ReloadHooks: %v; the hook runs: %v", err, b.Hooks.Handles("BeforeAgent"))
	}
	if applied, restart, err := b.Reload(nil); err != nil || len(applied)+len(restart) != 0 {
		t.Errorf("Reload after ReloadHooks: applied %q, restart %q, %v; want nothing", applied, restart, err)
	}
}
