package manage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
)

// Where the system settings' admin keys turn a feature off, its command
// group refuses in 0.61's words with status 52, as 0.61's
// runDeferredCommand; its help is still shown.
func TestAdminLockedCommandGroups(t *testing.T) {
	system := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(system, []byte(`{"admin": {"mcp": {"enabled": false}, "extensions": {"enabled": false}, "skills": {"enabled": false}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", system)
	t.Setenv("HOME", t.TempDir())
	for name, feature := range map[string]string{"mcp": "MCP", "extensions": "Extensions", "skills": "Agent skills"} {
		c, _ := cmdline.Find(Commands("test"), name)
		var stdout, stderr bytes.Buffer
		code := c.Run(context.Background(), []string{"list"}, nil, &stdout, &stderr)
		want := feature + " is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli\n"
		if code != 52 || stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("%s list: status %d, stdout %q, stderr %q; want 52 and %q", name, code, stdout.String(), stderr.String(), want)
		}
		stderr.Reset()
		if code := c.Run(context.Background(), []string{"--help"}, nil, &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), "administrator") {
			t.Errorf("%s --help: status %d, %q", name, code, stderr.String())
		}
	}
}
