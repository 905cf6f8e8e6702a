package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// A snapshot read beneath the root is the tree git add --all makes of
// the same workspace, object for object: regular and executable files,
// a symbolic link, an ignored file left out and one the index kept,
// a nested repository as its HEAD, an empty file; so checkpoints of
// either (and Gemini CLI's, which runs git add) compare and restore.
func TestStageMakesTheTreeGitAddMakes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits and symbolic links as git keeps them on Unix")
	}
	platformtest.Tool(t, "git")
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"a.txt": "a\n", "dir/b.go": "package b\n", "dir/deep/c": "\x00binary", "empty": "",
		".gitignore": "*.log\n", "debug.log": "ignored\n", "nested/x": "x\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "dir", "b.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir/b.go", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	nested := exec.Command("sh", "-c", "git init -q && git add x && git -c user.name=n -c user.email=n@example.com commit -qm x")
	nested.Dir = filepath.Join(root, "nested")
	nested.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := nested.CombinedOutput(); err != nil {
		t.Fatalf("making the nested repository: %v: %s", err, out)
	}

	trees := map[string]string{}
	for _, way := range []string{"beneath", "git-add"} {
		r := shadowRepo{dir: t.TempDir(), root: root}
		if err := r.ensure(ctx); err != nil {
			t.Fatal(err)
		}
		// A file tracked, then ignored: git add --all keeps it.
		if err := os.WriteFile(filepath.Join(root, "kept.log"), []byte("tracked\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := r.git(ctx, "add", "--force", "kept.log"); err != nil {
			t.Fatal(err)
		}
		var err error
		if way == "beneath" {
			err = r.stage(ctx, nil)
		} else {
			_, err = r.git(ctx, "add", "--all", ".")
		}
		if err != nil {
			t.Fatalf("%s: %v", way, err)
		}
		tree, err := r.git(ctx, "write-tree")
		if err != nil {
			t.Fatal(err)
		}
		trees[way] = string(tree)
		if way == "beneath" {
			if _, err := r.git(ctx, "fsck", "--strict", "--no-dangling"); err != nil {
				t.Errorf("the shadow repository's objects: %v", err)
			}
			listing, _ := r.git(ctx, "ls-files", "--stage")
			t.Logf("staged:\n%s", listing)
		}
	}
	if trees["beneath"] != trees["git-add"] {
		t.Errorf("the snapshot's tree is %s, git add's %s", trees["beneath"], trees["git-add"])
	}
}
