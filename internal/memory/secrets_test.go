package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// secrets writes, in dir, each file Gemini CLI keeps credentials or
// settings in, holding a marker, and returns the markers.
func secrets(t *testing.T, dir string) []string {
	t.Helper()
	var markers []string
	for _, name := range []string{"oauth_creds.json", "google_accounts.json", "settings.json", ".env", "mcp-oauth-tokens.json", "trustedFolders.json", "installation_id", "policies.toml"} {
		marker := "MARKER-" + strings.NewReplacer(".", "", "_", "", "-", "").Replace(name)
		write(t, filepath.Join(dir, name), marker)
		markers = append(markers, marker)
	}
	return markers
}

func noMarker(t *testing.T, got string, markers []string) {
	t.Helper()
	for _, m := range markers {
		if strings.Contains(got, m) {
			t.Errorf("%s reached the memory:\n%s", m, got)
		}
	}
}

func TestGlobalCredentialsAndSettingsNeverImported(t *testing.T) {
	tr := newTree(t)
	markers := secrets(t, tr.userDir)
	write(t, filepath.Join(tr.userDir, "style.md"), "global style")
	imports := []string{"./oauth_creds.json", "./.env", "./settings.json", "google_accounts.json", "./mcp-oauth-tokens.json",
		"./trustedFolders.json", "./installation_id", "./policies.toml", filepath.Join(tr.userDir, "oauth_creds.json")}
	if symlink(t, "oauth_creds.json", filepath.Join(tr.userDir, "notes.md")) {
		imports = append(imports, "./notes.md")
	}
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "rules @./style.md @"+strings.Join(imports, " @"))

	got := systemMemory(t, tr.loader(t))
	noMarker(t, got, markers)
	if !strings.Contains(got, "global style") {
		t.Errorf("a Markdown import in the global dir was refused:\n%s", got)
	}
	for _, p := range imports {
		if !strings.Contains(got, "<!-- Import failed: "+p+" - "+refusedWhy+" -->") {
			t.Errorf("the refusal of %s is not noted:\n%s", p, got)
		}
	}
}

func TestProjectEnvAndSettingsNeverImported(t *testing.T) {
	tr := newTree(t)
	markers := secrets(t, filepath.Join(tr.root, ".gemini"))
	write(t, filepath.Join(tr.root, ".env.local"), "MARKER-envlocal")
	write(t, filepath.Join(tr.root, ".ENV"), "MARKER-upperenv")
	write(t, filepath.Join(tr.repo, ".env"), "MARKER-repoenv")
	write(t, filepath.Join(tr.root, "config.json"), "project config")
	write(t, filepath.Join(tr.root, ".gemini", "notes.md"), "project notes")
	markers = append(markers, "MARKER-envlocal", "MARKER-repoenv", "MARKER-upperenv")
	write(t, filepath.Join(tr.root, "GEMINI.md"),
		"@./.env.local @./.ENV @../../.env @./.gemini/settings.json @./.gemini/.env @./config.json @./.gemini/notes.md")

	got := rootBlock(t, tr)
	noMarker(t, got, markers)
	for _, p := range []string{"./.env.local", "./.ENV", "../../.env", "./.gemini/settings.json", "./.gemini/.env"} {
		if !strings.Contains(got, "<!-- Import failed: "+p+" - "+refusedWhy+" -->") {
			t.Errorf("the refusal of %s is not noted:\n%s", p, got)
		}
	}
	if !strings.Contains(got, "project config") || !strings.Contains(got, "project notes") {
		t.Errorf("an ordinary project file was refused:\n%s", got)
	}
}

// A context.fileName naming a settings or .env file (a project's settings
// can set it) does not make it context.
func TestContextFileNamesCannotNameSecrets(t *testing.T) {
	tr := newTree(t)
	markers := secrets(t, tr.userDir)
	write(t, filepath.Join(tr.root, ".env"), "MARKER-rootenv")
	write(t, filepath.Join(tr.userDir, "AGENTS.txt"), "agents rules")
	markers = append(markers, "MARKER-rootenv")

	got := systemMemory(t, tr.loader(t, "settings.json", ".env", "oauth_creds.json", "installation_id", "AGENTS.txt"))
	noMarker(t, got, markers)
	if !strings.Contains(got, "agents rules") {
		t.Errorf("a configured context file in the global dir was refused:\n%s", got)
	}
}

// symlink makes a symbolic link, reporting whether it could: on Windows
// it may not (Wine's CreateSymbolicLink reports success and makes
// nothing), and the test goes on without what the link would check.
func symlink(t *testing.T, oldname, newname string) bool {
	t.Helper()
	err := os.Symlink(oldname, newname)
	if err == nil {
		if info, lerr := os.Lstat(newname); lerr != nil || info.Mode()&os.ModeSymlink == 0 {
			err = fmt.Errorf("%s is not a symbolic link: %v", newname, lerr)
		}
	}
	if err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	return err == nil
}
