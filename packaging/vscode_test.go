package packaging

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVSCodeManifest holds editors/vscode/package.json to what the VS Code
// Marketplace and Open VSX take and show: no proposed API (the Marketplace
// refuses an extension declaring enabledApiProposals), a PNG icon of at
// least 128×128 (vsce refuses an SVG one), the publisher, repository,
// license, categories, keywords and engines.vscode; and .vscodeignore
// leaving out everything it does not name, so no dev file ships.
func TestVSCodeManifest(t *testing.T) {
	dir := filepath.Join(repoRoot, "editors", "vscode")
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if p, ok := m["enabledApiProposals"]; ok {
		t.Errorf("package.json declares enabledApiProposals %v: the Marketplace refuses the extension", p)
	}
	str := func(key string) string { s, _ := m[key].(string); return s }
	for _, key := range []string{"name", "publisher", "displayName", "description", "version", "license", "icon"} {
		if str(key) == "" {
			t.Errorf("package.json has no %s", key)
		}
	}
	if repo, _ := m["repository"].(map[string]any); repo["url"] != repository {
		t.Errorf("package.json's repository is %v, not %s", m["repository"], repository)
	}
	for _, key := range []string{"categories", "keywords"} {
		if l, _ := m[key].([]any); len(l) == 0 {
			t.Errorf("package.json has no %s", key)
		}
	}
	if engines, _ := m["engines"].(map[string]any); engines["vscode"] == nil {
		t.Error("package.json has no engines.vscode")
	}
	if icon := str("icon"); icon != "" {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(icon)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil {
			t.Errorf("the icon %s is not a PNG: %v", icon, err)
		} else if cfg.Width < 128 || cfg.Height < 128 {
			t.Errorf("the icon %s is %d×%d, under the Marketplace's 128×128", icon, cfg.Width, cfg.Height)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".vscodeignore"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(ignore)), "\n")
	if lines[0] != "**" {
		t.Errorf(".vscodeignore starts with %q, not ** (everything left out but what it names)", lines[0])
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "!") {
			t.Errorf(".vscodeignore's %q: after **, only what the extension carries (!path)", l)
		}
	}
}
