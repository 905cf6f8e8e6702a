package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// linkedRoot is a workspace root, with a .env and the governing paths,
// and the link to it the editor opened, made by at (given the root and
// the home).
func linkedRoot(t *testing.T, at func(real, home string) string) (link, real, home string) {
	t.Helper()
	real, home = t.TempDir(), t.TempDir()
	for _, d := range []string{".gemini", ".git/hooks", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, data := range map[string]string{".gemini/settings.json": "{}\n", ".env": "GEMINI_API_KEY=secret\n", ".vscode/tasks.json": "{}\n"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link = at(real, home)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(link) })
	return link, real, home
}

// rootLinks are where a root's link may be: in /tmp, which the sandbox
// replaces, its path longer or shorter than the real one's (mounts were
// ordered by the length of the path written, and a bind at the link's
// path, which lands on the real directory, covered the read-only mounts
// inside), or in the home, seen read-only.
var rootLinks = map[string]func(real, home string) string{
	"longer in /tmp": func(real, home string) string {
		return filepath.Join(filepath.Dir(real), "a-workspace-folder-opened-through-a-symbolic-link")
	},
	"shorter in /tmp": func(real, home string) string {
		return filepath.Join(os.TempDir(), "w"+filepath.Base(real))
	},
	"in the home": func(real, home string) string { return filepath.Join(home, "work") },
}

// linkedRootScript, run in a root through its link, reads the .env and
// writes the governing files, then a file of its own.
const linkedRootScript = `cat .env; for f in .gemini/settings.json .git/config .git/hooks/pre-commit .vscode/tasks.json; do echo x > $f && echo "wrote $f"; done; pwd; echo made > made.txt`

func checkLinkedRoot(t *testing.T, link, real, out string) {
	t.Helper()
	if strings.Contains(out, "secret") {
		t.Errorf("the root's .env was read through its link: %q", out)
	}
	for _, f := range []string{".gemini/settings.json", ".git/config", ".git/hooks/pre-commit", ".vscode/tasks.json"} {
		if b, _ := os.ReadFile(filepath.Join(real, f)); string(b) == "x\n" {
			t.Errorf("the sandboxed command wrote %s through the root's link", f)
		}
	}
	if !strings.Contains(out, link+"\n") {
		t.Errorf("the command did not run at the link's path %s: %q", link, out)
	}
	if b, _ := os.ReadFile(filepath.Join(real, "made.txt")); string(b) != "made\n" {
		t.Errorf("a command run at the link's path could not write the root: %q", out)
	}
}

func TestARootThroughALinkKeepsItsProtections(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	for name, at := range rootLinks {
		t.Run(name, func(t *testing.T) {
			link, real, home := linkedRoot(t, at)
			sb, err := New(Config{Command: Bubblewrap, Why: "test"}, func() []string { return []string{link} }, home, "")
			if err != nil {
				t.Fatal(err)
			}
			out, _ := run(t, sb, link, linkedRootScript)
			checkLinkedRoot(t, link, real, out)
		})
	}
}

func TestASessionsRootThroughALinkKeepsItsProtections(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		for name, at := range rootLinks {
			t.Run(name, func(t *testing.T) {
				link, real, home := linkedRoot(t, at)
				se := sessionOf(t, configFor(t, backend), func() []string { return []string{link} }, home)
				out, _, _ := sh(t, t.Context(), se, link, linkedRootScript)
				checkLinkedRoot(t, link, real, out)
			})
		}
	})
}
