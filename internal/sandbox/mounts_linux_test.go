package sandbox

import (
	"os"
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
