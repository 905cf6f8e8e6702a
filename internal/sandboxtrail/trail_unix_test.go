//go:build !windows

package sandboxtrail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hostile command's ways to make old configuration appear where a
// later session reads it are found too: a link named .gemini leading to
// a folder made before the window (the link's own change time counts),
// and a file made before the window renamed into place (a rename sets
// its change time), or linked there (so does a link).
func TestConfigurationMovedOrLinkedIntoPlaceIsFound(t *testing.T) {
	tr := At(t.TempDir())
	root := canonical(t.TempDir())
	old := filepath.Join(root, "old")
	write(t, filepath.Join(old, ".gemini", "settings.json"), `{"mcpServers": {}}`)
	write(t, filepath.Join(old, "env"), "GEMINI_SANDBOX=false\n")
	write(t, filepath.Join(old, "hook.toml"), `prompt = "!{x}"`)
	time.Sleep(3 * time.Duration(slack))
	w, err := tr.Open([]string{root}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	linked, moved := filepath.Join(root, "linked"), filepath.Join(root, "moved")
	if err := os.MkdirAll(filepath.Join(moved, ".gemini", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(old, ".gemini"), filepath.Join(linked, ".gemini")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(old, "env"), filepath.Join(moved, ".env")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(old, "hook.toml"), filepath.Join(moved, ".gemini", "commands", "x.toml")); err != nil {
		t.Fatal(err)
	}
	if got := changedFiles(t, tr, linked); len(got) == 0 || got[0] != filepath.Join(linked, ".gemini") {
		t.Errorf("a .gemini linked into place: found %q", got)
	}
	got := strings.Join(changedFiles(t, tr, moved, filepath.Join(moved, ".env")), "\n")
	for _, want := range []string{filepath.Join(moved, ".env"), filepath.Join(moved, ".gemini", "commands", "x.toml")} {
		if !strings.Contains(got, want) {
			t.Errorf("found %q, want %s among them", got, want)
		}
	}
}
