package subagents

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// /agents disable writes agents.overrides.NAME.enabled false in the
// workspace's settings, enable writes true in the workspace's and the
// user's; each reloads the catalog; 0.61's messages.
func TestEnableDisable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := SettingsFiles{User: filepath.Join(dir, "user.json"), Workspace: filepath.Join(dir, "ws.json")}
	c, _ := Load(ctx, Options{})
	msg, err := c.Disable(ctx, files, "cli_help")
	if err != nil || msg != `Agent "cli_help" disabled by setting it to disabled in project (`+files.Workspace+`) settings.` {
		t.Errorf("Disable = %q, %v", msg, err)
	}
	if on, set, _ := settings.AgentEnabled(files.Workspace, "cli_help"); !set || on {
		t.Errorf("workspace enabled = %v set %v", on, set)
	}
	if _, err := os.Stat(files.User); err == nil {
		t.Error("disable wrote the user's settings")
	}
	if _, ok := c.Lookup("cli_help"); ok {
		t.Error("cli_help still offered after disable")
	}
	if msg, _ := c.Disable(ctx, files, "cli_help"); msg != "Agent 'cli_help' is already disabled." {
		t.Errorf("second Disable = %q", msg)
	}
	msg, err = c.Enable(ctx, files, "cli_help")
	want := `Agent "cli_help" enabled by setting it to enabled in project (` + files.Workspace + `) and user (` + files.User + `) settings.`
	if err != nil || msg != want {
		t.Errorf("Enable = %q, %v\nwant %q", msg, err, want)
	}
	for _, p := range []string{files.Workspace, files.User} {
		if on, set, _ := settings.AgentEnabled(p, "cli_help"); !set || !on {
			t.Errorf("%s enabled = %v set %v", p, on, set)
		}
	}
	if _, ok := c.Lookup("cli_help"); !ok {
		t.Error("cli_help not offered after enable")
	}
	if msg, _ := c.Enable(ctx, files, "cli_help"); msg != "Agent 'cli_help' is already enabled." {
		t.Errorf("second Enable = %q", msg)
	}
	if _, err := c.Disable(ctx, files, "nobody"); err == nil || err.Error() != "Agent 'nobody' not found." {
		t.Errorf("Disable(nobody) = %v", err)
	}
	if _, err := c.Enable(ctx, files, "nobody"); err == nil {
		t.Error("Enable(nobody) succeeded")
	}
	// Without a workspace, disable writes the user's settings.
	msg, err = c.Disable(ctx, SettingsFiles{User: files.User}, "generalist")
	if err != nil || msg != `Agent "generalist" disabled by setting it to disabled in user (`+files.User+`) settings.` {
		t.Errorf("Disable without workspace = %q, %v", msg, err)
	}
}
