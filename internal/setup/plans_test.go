package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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

// general.plan.directory is where its symlinks lead, which must be inside
// the project as Gemini CLI requires: one that leads out of it (to
// ~/.gemini, say) is not used, the user is warned and each session plans
// in its own directory; one made to lead out after the start is refused
// when a session finds it. A symlink to a directory inside the project is
// that directory.
func TestCustomPlansDirThroughSymlinks(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(filepath.Join(root, "docs", "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	var warned []error
	b := &Built{
		opts:   Options{Workspace: ws, Warn: func(_ string, err error) { warned = append(warned, err) }},
		Getenv: func(k string) string { return map[string]string{"HOME": home, "USERPROFILE": home}[k] },
	}
	plansIn := func(dir string) func(string) (string, error) {
		t.Helper()
		warned = nil
		opts, find := b.planOptions(settings.Settings{General: settings.General{Plan: settings.Plan{Directory: dir}}})
		if !opts.Enabled || find == nil {
			t.Fatalf("directory %q: plan mode is off", dir)
		}
		return find
	}

	platformtest.Symlink(t, outside, filepath.Join(root, "out"))
	got, err := plansIn("out")("S1")
	if err != nil || !strings.HasPrefix(got, filepath.Join(home, ".gemini", "tmp")+string(filepath.Separator)) || filepath.Base(got) != "plans" {
		t.Errorf("symlink out of the project: the plans directory is %s, %v; want the session's own", got, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), `general.plan.directory "out" resolves to `+outside+", which is outside the project root "+root) {
		t.Errorf("warnings %v", warned)
	}

	platformtest.Symlink(t, filepath.Join(root, "docs", "plans"), filepath.Join(root, "in"))
	if got, err := plansIn("in")("S1"); err != nil || got != filepath.Join(root, "docs", "plans") || len(warned) != 0 {
		t.Errorf("symlink inside the project: %s, %v (warnings %v); want %s", got, err, warned, filepath.Join(root, "docs", "plans"))
	}

	find := plansIn("later")
	platformtest.Symlink(t, outside, filepath.Join(root, "later"))
	if got, err := find("S2"); err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("made to lead out after the start: %s, %v; want it refused", got, err)
	}
}
