//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO in the place of every configuration file gemini-ls reads at
// start (settings, trusted folders, .env, context files, commands,
// policies, skills, extensions, hooks, ignore files) does not hang `run`:
// the prompt runs, and each FIFO a loader skipped is named on stderr. The
// harness ends a run that has not finished in a minute, failing the test.
func TestRunNamesFIFOsInsteadOfBlocking(t *testing.T) {
	hl := newHeadless(t, nil, geminitest.TextTurn("done"))
	home, root, system := t.TempDir(), hl.root, t.TempDir()
	user := filepath.Join(home, ".gemini")
	ext := filepath.Join(user, "extensions")
	writeFiles(t, user, map[string]string{
		"commands/mine.toml":                       `prompt = "Mine prompt"`,
		"extensions/tools/gemini-extension.json":   `{"name": "tools", "version": "1.0.0"}`,
		"extensions/secrets/gemini-extension.json": `{"name": "secrets", "version": "1.0.0"}`,
	})
	named := []string{
		// Settings, trust and the environment.
		filepath.Join(user, "settings.json"),
		filepath.Join(root, ".gemini", "settings.json"),
		filepath.Join(system, "settings.json"),
		filepath.Join(system, "system-defaults.json"),
		filepath.Join(user, "trustedFolders.json"),
		filepath.Join(root, ".gemini", ".env"),
		// Context files.
		filepath.Join(user, "GEMINI.md"),
		filepath.Join(root, "GEMINI.md"),
		filepath.Join(ext, "tools", "GEMINI.md"),
		// Commands.
		filepath.Join(user, "commands", "pipe.toml"),
		filepath.Join(root, ".gemini", "commands", "pipe.toml"),
		filepath.Join(ext, "tools", "commands", "pipe.toml"),
		// Policies.
		filepath.Join(user, "policies", "pipe.toml"),
		filepath.Join(root, ".gemini", "policies", "pipe.toml"),
		filepath.Join(ext, "tools", "policies", "pipe.toml"),
		// Skills.
		filepath.Join(user, "skills", "pipe", "SKILL.md"),
		filepath.Join(root, ".gemini", "skills", "pipe", "SKILL.md"),
		filepath.Join(ext, "tools", "skills", "pipe", "SKILL.md"),
		filepath.Join(home, ".agents", "skills"), // a directory's place
		// Extensions: the enablement file, a manifest, a .env, hooks.
		filepath.Join(ext, "extension-enablement.json"),
		filepath.Join(ext, "broken", "gemini-extension.json"),
		filepath.Join(ext, "secrets", ".env"),
		filepath.Join(ext, "tools", "hooks", "hooks.json"),
	}
	for _, path := range named {
		fifotest.Make(t, path)
	}
	// Read where they are, and skipped as a missing file is: never opened.
	fifotest.Make(t, filepath.Join(root, ".geminiignore"))
	fifotest.Make(t, filepath.Join(root, ".gitignore"))

	env := append(hl.withoutEnv("HOME"), "HOME="+home,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(system, "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+filepath.Join(system, "system-defaults.json"))
	res := hl.runIn(root, env, "run", "-p", "/mine")
	res.wantExit(t, 0)
	if got := lastUserText(t, hl.model.Requests(), 0); got != "Mine prompt" {
		t.Errorf("the model was sent %q, want the user's command's prompt", got)
	}
	for _, path := range named {
		if !fifotest.Named(res.stderr, path) {
			t.Errorf("stderr does not name the FIFO %s", path)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", res.stderr)
	}
	if strings.Contains(res.stderr, "panic") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
}
