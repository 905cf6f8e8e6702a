package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// mountDirs are a read-only source holding a file, an existing place to
// mount it, and a directory to mount writable holding a .env file.
func mountDirs(t *testing.T) (data, target, cache string) {
	t.Helper()
	data, target, cache = t.TempDir(), t.TempDir(), t.TempDir()
	for p, text := range map[string]string{filepath.Join(data, "f"): "from data\n", filepath.Join(cache, ".env"): "K=V\n"} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return data, target, cache
}

// What SANDBOX_MOUNTS and SANDBOX_ENV name is there for bubblewrap's
// commands: a read-only mount at its place, read-only; a writable one at
// its own path, writable, its .env files masked as a writable path's;
// SANDBOX_ENV's variables, named like a secret or not. Without them
// neither directory is there (they lie in /tmp, which is the sandbox's
// own), nor the variable.
func TestBubblewrapMountsAndSetsWhatTheUserAsked(t *testing.T) {
	data, target, cache := mountDirs(t)
	const script = `cat $TARGET/f 2>/dev/null; touch $TARGET/x 2>/dev/null && echo wrote-target; (echo c > $CACHE/new) 2>/dev/null && echo wrote-cache; echo "env=[$(cat $CACHE/.env 2>/dev/null)]"; echo "token=$GITHUB_TOKEN"`
	t.Setenv("TARGET", target)
	t.Setenv("CACHE", cache)
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test",
		Mounts: []Mount{{data, target, "ro"}, {cache, cache, "rw"}}, Env: []string{"GITHUB_TOKEN=for-the-sandbox"}})
	for _, says := range []string{sb.Describe(), sb.Note()} {
		if !strings.Contains(says, data+" at "+target+" read-only, "+cache+" writable") {
			t.Errorf("%q does not say where the mounts are", says)
		}
	}
	out, err := run(t, sb, root, script)
	if want := "from data\nwrote-cache\nenv=[]\ntoken=for-the-sandbox\n"; err != nil || out != want {
		t.Errorf("with the mounts: %v %q, want %q", err, out, want)
	}
	sb, root, _ = sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	if out, _ := run(t, sb, root, script); out != "env=[]\ntoken=\n" {
		t.Errorf("without them: %q", out)
	}
}

// The same for a real podman's container.
func TestPodmanMountsAndSetsWhatTheUserAsked(t *testing.T) {
	image, _ := sandboxtest.Podman(t)
	data, _, cache := mountDirs(t)
	sb, root, _ := sandboxFor(t, Config{Command: Podman, Image: image, Why: "test",
		Mounts: []Mount{{data, "/in/data", "ro"}, {cache, cache, "rw"}}, Env: []string{"GITHUB_TOKEN=for-the-sandbox"}})
	out, err := run(t, sb, root, `cat /in/data/f; touch /in/data/x 2>/dev/null && echo wrote-data; echo c > `+cache+`/new && echo wrote-cache; echo "env=[$(cat `+cache+`/.env 2>/dev/null)]"; echo "token=$GITHUB_TOKEN"`)
	if want := "from data\nwrote-cache\nenv=[]\ntoken=for-the-sandbox\n"; err != nil || out != want {
		t.Errorf("in the container: %v %q, want %q", err, out, want)
	}
	if b, err := os.ReadFile(filepath.Join(cache, "new")); err != nil || string(b) != "c\n" {
		t.Errorf("the writable mount's file: %q %v", b, err)
	}
}

// A mount cannot be turned into a way to the credentials: the mounted
// directory, which lies in the writable workspace, is replaced with a
// link to ~/.ssh, which the next sandbox's mount would follow. The next
// command is refused, and nothing of ~/.ssh is read.
func TestBubblewrapRefusesAMountSwappedForALink(t *testing.T) {
	for _, opts := range []string{"ro", "rw"} {
		t.Run(opts, func(t *testing.T) {
			sandboxtest.NeedBubblewrap(t)
			root, home, target := t.TempDir(), t.TempDir(), t.TempDir()
			data := filepath.Join(root, "data")
			to := target
			if opts == "rw" {
				to = data
			}
			for p, text := range map[string]string{filepath.Join(data, "f"): "data\n", filepath.Join(home, ".ssh", "id_ed25519"): "PRIVATE KEY\n"} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			sb, err := New(Config{Command: Bubblewrap, Why: "test", Mounts: []Mount{{data, to, opts}}}, func() []string { return []string{root} }, home, "")
			if err != nil {
				t.Fatal(err)
			}
			if out, err := run(t, sb, root, "cat "+to+"/f"); err != nil || out != "data\n" {
				t.Fatalf("before: %v %q", err, out)
			}
			// A command in the sandbox swaps the read-only mount's path,
			// which is no mount point there. The writable one is one, so
			// the swap comes from outside (another front end's command,
			// anything else that writes the workspace).
			link := "rm -r data && ln -s " + filepath.Join(home, ".ssh") + " data"
			if opts == "ro" {
				if out, err := run(t, sb, root, link); err != nil {
					t.Fatalf("the swap: %v %q", err, out)
				}
			} else if err := exec.Command("bash", "-c", "cd "+root+" && "+link).Run(); err != nil {
				t.Fatalf("the swap: %v", err)
			}
			cmd := exec.CommandContext(t.Context(), "bash", "-c", "cat "+to+"/id_ed25519")
			cmd.Dir = root
			err = sb.Wrap(cmd)
			if err == nil || !strings.Contains(err.Error(), "no longer leads where it did") {
				out, _ := cmd.CombinedOutput()
				t.Fatalf("the swapped mount was not refused: %v; the command read %q", err, out)
			}
		})
	}
}
