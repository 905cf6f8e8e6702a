package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session's plans directory is where Gemini CLI keeps it, in the
// project's temporary directory, claimed (with its marker) on first use;
// a session id that could leave it is refused.
func TestSessionPlansDir(t *testing.T) {
	geminiDir, root := t.TempDir(), t.TempDir()
	plansOf := sessionPlansDir(geminiDir, root)
	dir, err := plansOf("ABC123")
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Dir(filepath.Dir(dir))
	if filepath.Dir(tmp) != filepath.Join(geminiDir, "tmp") || filepath.Base(filepath.Dir(dir)) != "ABC123" || filepath.Base(dir) != "plans" {
		t.Errorf("the plans directory is %s, want %s/tmp/<project>/ABC123/plans", dir, geminiDir)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	if marker, err := os.ReadFile(filepath.Join(tmp, ".project_root")); err != nil || strings.TrimSpace(string(marker)) != realRoot {
		t.Errorf("the project's directory is not claimed for %s: %q, %v", realRoot, marker, err)
	}
	if again, err := plansOf("ABC123"); err != nil || again != dir {
		t.Errorf("found again: %s, %v; want %s", again, err, dir)
	}
	for _, id := range []string{"", "..", ".", "../x", "a/b"} {
		if dir, err := plansOf(id); err == nil {
			t.Errorf("session id %q gave the plans directory %s", id, dir)
		}
	}
}
