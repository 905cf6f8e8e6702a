package fetchsource

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// TestCopyDir: files with their modes, made owner-writable, and
// directories.
func TestCopyDir(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "run.sh"), []byte("echo"), 0o555)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644)
	if err := CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	// Windows keeps no mode but read-only (0o555 is that): the copy is
	// writable there too.
	fi, err := os.Stat(filepath.Join(dst, "sub", "run.sh"))
	if err != nil || fi.Mode().Perm()&0o200 == 0 || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755 {
		t.Fatalf("run.sh: %v %v, want 0755 (its mode, owner-writable)", fi, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "a.txt")); string(data) != "a" {
		t.Fatalf("a.txt = %q", data)
	}
}

// TestCopyDirLinks: a link is copied as the link, not what it names.
func TestCopyDirLinks(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644)
	platformtest.Symlink(t, "a.txt", filepath.Join(src, "link"))
	if err := CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	if link, err := os.Readlink(filepath.Join(dst, "link")); err != nil || link != "a.txt" {
		t.Fatalf("link: %q %v", link, err)
	}
}

// TestGitCloneAndRemoteHead: a clone of a ref, and the remote's head seen
// moving on; git runs without the user's configuration.
func TestGitCloneAndRemoteHead(t *testing.T) {
	sandboxtest.NeedGit(t)
	ctx := context.Background()
	root := t.TempDir()
	bare, wc := filepath.Join(root, "r.git"), filepath.Join(root, "wc")
	g := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@e", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	g(root, "init", "-q", "--bare", bare)
	g(root, "init", "-q", "-b", "main", wc)
	os.WriteFile(filepath.Join(wc, "f"), []byte("1"), 0o644)
	g(wc, "add", "f")
	g(wc, "commit", "-qm", "1")
	g(wc, "tag", "v1")
	g(wc, "push", "-q", bare, "main", "v1")
	g(bare, "symbolic-ref", "HEAD", "refs/heads/main")
	os.WriteFile(filepath.Join(wc, "f"), []byte("2"), 0o644)
	g(wc, "commit", "-qam", "2")
	g(wc, "push", "-q", bare, "main")

	dst := t.TempDir()
	if err := Clone(ctx, "file://"+bare, "v1", dst); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "f")); string(data) != "1" {
		t.Fatalf("the clone of v1 has f = %q", data)
	}
	local, err := Head(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	if remote, err := RemoteHead(ctx, dst, "v1"); err != nil || remote != local {
		t.Fatalf("v1 remote %q %v, local %q", remote, err, local)
	}
	if remote, err := RemoteHead(ctx, dst, ""); err != nil || remote == local {
		t.Fatalf("HEAD moved on, yet remote %q %v = local %q", remote, err, local)
	}
	if _, err := RemoteHead(ctx, dst, "nope"); err == nil || !strings.Contains(err.Error(), "git ref nope not found") {
		t.Fatalf("a missing ref: %v", err)
	}
	if err := Clone(ctx, "file://"+filepath.Join(root, "missing.git"), "", t.TempDir()); err == nil {
		t.Fatal("cloning a missing repository succeeded")
	}
	for _, kv := range SafeGitEnv([]string{"GIT_CONFIG_GLOBAL=/home/me/.gitconfig", "PATH=/bin"}) {
		if kv == "GIT_CONFIG_GLOBAL=/home/me/.gitconfig" {
			t.Fatal("the caller's GIT_CONFIG_GLOBAL was kept")
		}
	}
}
