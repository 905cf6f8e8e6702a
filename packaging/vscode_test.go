package packaging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// vscodeManifestErrors holds the extension in fsys (editors/vscode) to
// what the VS Code Marketplace and Open VSX take and show: no proposed
// API (the Marketplace refuses an extension declaring
// enabledApiProposals), a PNG icon of at least 128×128 (vsce refuses an
// SVG one), a display name and description that say it is an
// unofficial, third-party client (unofficialErrors), the publisher,
// repository, license, categories, keywords and engines.vscode; and .vscodeignore leaving out everything it does not
// name, so no dev file ships.
func vscodeManifestErrors(fsys fs.FS) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	data, err := fs.ReadFile(fsys, "package.json")
	if err != nil {
		return []string{err.Error()}
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return []string{fmt.Sprintf("package.json: %v", err)}
	}
	if p, ok := m["enabledApiProposals"]; ok {
		fail("package.json declares enabledApiProposals %v: the Marketplace refuses the extension", p)
	}
	str := func(key string) string { s, _ := m[key].(string); return s }
	for _, key := range []string{"name", "publisher", "displayName", "description", "version", "license", "icon"} {
		if str(key) == "" {
			fail("package.json has no %s", key)
		}
	}
	errs = append(errs, unofficialErrors(str("displayName"), str("description"))...)
	if repo, _ := m["repository"].(map[string]any); repo["url"] != repository {
		fail("package.json's repository is %v, not %s", m["repository"], repository)
	}
	for _, key := range []string{"categories", "keywords"} {
		if l, _ := m[key].([]any); len(l) == 0 {
			fail("package.json has no %s", key)
		}
	}
	if engines, _ := m["engines"].(map[string]any); engines["vscode"] == nil {
		fail("package.json has no engines.vscode")
	}
	if icon := str("icon"); icon != "" {
		if f, err := fsys.Open(path.Clean(icon)); err != nil {
			fail("the icon: %v", err)
		} else {
			defer f.Close()
			cfg, err := png.DecodeConfig(f)
			if err != nil {
				fail("the icon %s is not a PNG: %v", icon, err)
			} else if cfg.Width < 128 || cfg.Height < 128 {
				fail("the icon %s is %d×%d, under the Marketplace's 128×128", icon, cfg.Width, cfg.Height)
			}
		}
	}
	ignore, err := fs.ReadFile(fsys, ".vscodeignore")
	if err != nil {
		return append(errs, err.Error())
	}
	lines := strings.Split(strings.TrimSpace(string(ignore)), "\n")
	if lines[0] != "**" {
		fail(".vscodeignore starts with %q, not ** (everything left out but what it names)", lines[0])
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "!") {
			fail(".vscodeignore's %q: after **, only what the extension carries (!path)", l)
		}
	}
	return errs
}

// unofficialErrors holds the Marketplace listing's name and description
// to saying what the extension is: a third-party client for Google's
// Gemini, which a bare "Gemini" from publisher gemini-ls would pass for
// Google's own (and a registry may refuse so).
func unofficialErrors(displayName, description string) []string {
	var errs []string
	if !strings.Contains(strings.ToLower(displayName), "(unofficial)") {
		errs = append(errs, fmt.Sprintf("the display name %q does not say (unofficial): it reads as Google's own extension", displayName))
	}
	if !strings.Contains(description, "third-party") || !strings.Contains(description, "not made or endorsed by Google") {
		errs = append(errs, fmt.Sprintf("the description %q does not say it is a third-party client, not made or endorsed by Google", description))
	}
	return errs
}

// TestVSCodeManifest holds editors/vscode to vscodeManifestErrors.
func TestVSCodeManifest(t *testing.T) {
	for _, err := range vscodeManifestErrors(os.DirFS(filepath.Join(repoRoot, "editors", "vscode"))) {
		t.Error(err)
	}
}

// TestVSCodeManifestMutations feeds vscodeManifestErrors faulty copies
// of the extension's manifest, icon and .vscodeignore.
func TestVSCodeManifestMutations(t *testing.T) {
	good := filesUnder(t, filepath.Join(repoRoot, "editors", "vscode"),
		"package.json", ".vscodeignore", "media/icon.png", "media/gemini.svg")
	var small bytes.Buffer
	if err := png.Encode(&small, image.NewGray(image.Rect(0, 0, 64, 64))); err != nil {
		t.Fatal(err)
	}
	manifest := func(old, new string) func(fstest.MapFS) fstest.MapFS { return edit("package.json", old, new) }
	validate := func(fsys fstest.MapFS) []string { return vscodeManifestErrors(fsys) }
	testMutations(t, good, validate, []mutation[fstest.MapFS]{
		{"proposed API", manifest(`"name": "gemini-ls",`, `"name": "gemini-ls", "enabledApiProposals": ["chatProvider"],`),
			"package.json declares enabledApiProposals [chatProvider]"},
		{"Google's name", manifest(`"displayName": "gemini-ls: Gemini agent (unofficial)"`, `"displayName": "Gemini"`),
			`the display name "Gemini" does not say (unofficial)`},
		{"no disclaimer", manifest("not made or endorsed by Google", "by Google"), "does not say it is a third-party client"},
		{"no publisher", manifest(`"publisher": "gemini-ls",`, ""), "package.json has no publisher"},
		{"another repository", manifest(`"url": "`+repository+`"`, `"url": "https://github.com/someone/gemini-ls"`),
			"package.json's repository is"},
		{"no categories", manifest(`"categories":`, `"tags":`), "package.json has no categories"},
		{"no engines.vscode", manifest(`"vscode": "^`, `"node": "^`), "package.json has no engines.vscode"},
		{"SVG icon", manifest(`"icon": "media/icon.png"`, `"icon": "media/gemini.svg"`), "the icon media/gemini.svg is not a PNG"},
		{"missing icon", manifest(`"icon": "media/icon.png"`, `"icon": "media/none.png"`), "the icon: open media/none.png"},
		{"64×64 icon", func(fsys fstest.MapFS) fstest.MapFS {
			fsys["media/icon.png"].Data = small.Bytes()
			return fsys
		}, "the icon media/icon.png is 64×64, under the Marketplace's 128×128"},
		{".vscodeignore without **", edit(".vscodeignore", "**\n", ""), `.vscodeignore starts with "!dist/extension.js", not **`},
		{".vscodeignore leaving out a file", edit(".vscodeignore", "!LICENSE", "LICENSE"), `.vscodeignore's "LICENSE"`},
	})
}
