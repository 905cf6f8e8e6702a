package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A command that moves the directory holding an allowed path aside and
// puts a link to ~/.local in its place gets no writable ~/.local/bin: the
// next command is refused, and the home is as it was. docker and podman
// follow such a link and mount ~/.local/bin writable; bubblewrap failed
// to start, saying only that it could not make a directory. An allowed
// path that is missing is skipped, as bwrap's --bind-try skips it.
func TestRefusesAnAllowedPathMovedForALinkOut(t *testing.T) {
	for _, command := range []string{Bubblewrap, Podman} {
		t.Run(command, func(t *testing.T) {
			cfg := Config{Command: command, Why: "test"}
			if command == Podman {
				cfg.Image, _ = sandboxtest.Podman(t)
			} else {
				sandboxtest.NeedBubblewrap(t)
			}
			root, home := t.TempDir(), t.TempDir()
			for _, dir := range []string{filepath.Join(root, "a", "bin"), filepath.Join(home, ".local", "bin")} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// One not there: podman refused to start with it.
			cfg.AllowedPaths = []string{filepath.Join(root, "a", "bin"), filepath.Join(home, ".cache", "pip")}
			sb, err := New(cfg, func() []string { return []string{root} }, home, "")
			if err != nil {
				t.Fatal(err)
			}
			if out, err := run(t, sb, root, "mv a a2 && ln -s "+home+"/.local a && echo made"); err != nil || out != "made\n" {
				t.Fatalf("the link: %v %q", err, out)
			}
			cmd := exec.CommandContext(t.Context(), "bash", "-c", "echo planted > a/bin/gcc")
			cmd.Dir = root
			err = sb.Wrap(cmd)
			if err == nil || !strings.Contains(err.Error(), "now leads to "+filepath.Join(home, ".local", "bin")) {
				out, _ := cmd.CombinedOutput()
				t.Errorf("the link out was not refused: %v; the command said %q", err, out)
			}
			if _, err := os.Stat(filepath.Join(home, ".local", "bin", "gcc")); !os.IsNotExist(err) {
				t.Errorf("the home was written: %v", err)
			}
		})
	}
}
