package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helixServers are the language servers `hx --health lang` says Helix
// configures for lang, with config (nil: none) as the user's
// languages.toml.
func helixServers(t *testing.T, hx, lang string, config []byte) []string {
	t.Helper()
	home := t.TempDir()
	if config != nil {
		writeFiles(t, home, map[string]string{".config/helix/languages.toml": string(config)})
	}
	cmd := exec.Command(hx, "--health", lang)
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hx --health %s: %v\n%s", lang, err, out)
	}
	// "Configured language servers:" then one "  ✓ name: …" or "  ✘ name: …"
	// line each, in colours whatever the output is.
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(string(out), "")
	_, rest, ok := strings.Cut(plain, "Configured language servers:")
	if !ok {
		t.Fatalf("hx --health %s lists no language servers:\n%s", lang, out)
	}
	var names []string
	server := regexp.MustCompile(`^  \S+ ([^:]+):`)
	for _, line := range strings.Split(rest, "\n")[1:] {
		m := server.FindStringSubmatch(line)
		if m == nil {
			break
		}
		names = append(names, m[1])
	}
	return names
}

// Helix replaces a language's language-servers rather than adding to it
// (issue 62): with the snippet as the user's languages.toml, each
// language it names keeps every server the installed Helix configures by
// default, in order, with gemini-ls added after them. Needs hx (Helix)
// on PATH; `make test-helix` runs it in Debian sid's (25.07), as
// editors/helix/test/run.sh's default_servers_kept.
func TestHelixSnippetKeepsTheDefaultServers(t *testing.T) {
	hx, err := exec.LookPath("hx")
	if err != nil {
		t.Skip("needs hx (Helix) on PATH: make test-helix checks the snippet in Debian sid's Helix")
	}
	snippet, err := os.ReadFile(filepath.Join("..", "..", "..", "editors", "helix", "languages.toml"))
	if err != nil {
		t.Fatal(err)
	}
	langs := regexp.MustCompile(`(?m)^\[\[language\]\]\nname = "([^"]+)"`).FindAllStringSubmatch(string(snippet), -1)
	if len(langs) == 0 {
		t.Fatal("the snippet names no language")
	}
	for _, m := range langs {
		lang := m[1]
		defaults := helixServers(t, hx, lang, nil)
		got := helixServers(t, hx, lang, snippet)
		if want := append(slices.Clone(defaults), "gemini-ls"); !slices.Equal(got, want) {
			t.Errorf("%s: the snippet configures %q; Helix's defaults are %q, so want %q", lang, got, defaults, want)
		}
	}
}
