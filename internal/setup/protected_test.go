package setup

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// What decides what the agent may run, wherever the environment, the
// settings and the command line put it, is protected as the names are;
// the project's other files are not.
func TestProtectedFilesFollowTheSettings(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	env := map[string]string{
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(elsewhere, "system", "settings.json"),
		"GEMINI_CLI_TRUSTED_FOLDERS_PATH": filepath.Join(elsewhere, "trusted.json"),
		"GEMINI_SYSTEM_MD":                "prompts/system.md",
		"XDG_CONFIG_HOME":                 filepath.Join(root, "dotfiles"),
		"XDG_STATE_HOME":                  filepath.Join(elsewhere, "state"),
	}
	b := &Built{
		opts:         Options{AdminPolicyPaths: []string{filepath.Join(elsewhere, "admin")}},
		Getenv:       func(k string) string { return env[k] },
		projectRoots: []string{root},
		Extensions:   extensions.Loaded{All: []extensions.Extension{{Name: "linked", Path: filepath.Join(elsewhere, "ext"), Enabled: true}, {Name: "off", Path: filepath.Join(elsewhere, "off")}}},
	}
	set := settings.Settings{PolicyPaths: []string{"team-policies"}, AdminPolicyPaths: []string{"replaced-by-the-flag"}}
	s := b.protectedFiles(set)
	for path, want := range map[string]string{
		filepath.Join(elsewhere, "system", "settings.json"):                  "Gemini CLI's system settings",
		filepath.Join(elsewhere, "system", "system-defaults.json"):           "Gemini CLI's system defaults",
		filepath.Join(elsewhere, "trusted.json"):                             "the record of the folders the user trusts",
		filepath.Join(root, "team-policies", "allow.toml"):                   "the user's policies (policyPaths)",
		filepath.Join(elsewhere, "admin", "x.toml"):                          "the administrator's policies (adminPolicyPaths)",
		filepath.Join(root, "prompts", "system.md"):                          "the system prompt (GEMINI_SYSTEM_MD)",
		filepath.Join(elsewhere, "ext", "gemini-extension.json"):             "the extension linked",
		filepath.Join(root, ".gemini", "settings.json"):                      "gemini-ls's and Gemini CLI's configuration",
		filepath.Join(root, "dotfiles", "git", "config"):                     "git's configuration",
		filepath.Join(root, "dotfiles", "nvim", "init.lua"):                  "Neovim's configuration",
		filepath.Join(elsewhere, "state", "gemini-ls", "sessions", "s.json"): "gemini-ls's own records",
		filepath.Join(root, ".agents", "mcp_config.json"):                    "the configuration gemini-ls shares with Antigravity",
		filepath.Join(root, "dotfiles", "other", "x.conf"):                   "",
		filepath.Join(root, "main.go"):                                       "",
		filepath.Join(root, "replaced-by-the-flag", "x.toml"):                "",
		filepath.Join(elsewhere, "off", "gemini-extension.json"):             "",
	} {
		got := s.Why(path)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("Why(%s) = %q, want it to say %q", path, got, want)
		}
	}
}
