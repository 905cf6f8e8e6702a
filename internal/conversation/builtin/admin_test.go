package builtin

import (
	"context"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// Where the system settings' admin keys turn a feature off, its command
// answers with 0.61's refusal alone, and runs nothing.
func TestAdminLockedCommands(t *testing.T) {
	off := false
	built := &setup.Built{Settings: settings.Settings{Admin: settings.Admin{
		MCP:        settings.AdminMCP{Enabled: &off},
		Extensions: settings.AdminSwitch{Enabled: &off},
		Skills:     settings.AdminSwitch{Enabled: &off},
	}}}
	for name, feature := range map[string]string{"mcp": "MCP", "extensions": "Extensions", "skills": "Agent skills"} {
		b, ok := Find(name)
		if !ok {
			t.Fatalf("no /%s", name)
		}
		_, err := b.Invoke(context.Background(), Env{Built: built}, "list")
		if want := settings.AdminDisabledMessage(feature); err == nil || err.Error() != want {
			t.Errorf("/%s = %v, want %q", name, err, want)
		}
	}
	if got := adminLocked("mcp", &setup.Built{}); got != "" {
		t.Errorf("unlocked /mcp is locked as %q", got)
	}
}
