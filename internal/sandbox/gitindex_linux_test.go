package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// The gitlinks read from an index are those git lists (ls-files -s,
// mode 160000), in every form git writes one: versions 2, 3 (an entry
// with extended flags: intent to add) and 4 (paths prefix-compressed),
// a split index (the gitlinks in its shared index and in itself), and a
// repository whose objects are named by SHA-256.
func TestReadGitlinksAsGitLists(t *testing.T) {
	sandboxtest.NeedGit(t)
	const oid1, oid256 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222222222222222222222222222"
	for name, form := range map[string]struct {
		init  []string
		oid   string
		after [][]string
	}{
		"version 2":   {oid: oid1, after: [][]string{{"update-index", "--index-version", "2"}}},
		"version 3":   {oid: oid1, after: [][]string{{"add", "-N", "added"}, {"update-index", "--index-version", "3"}}},
		"version 4":   {oid: oid1, after: [][]string{{"update-index", "--index-version", "4"}}},
		"split index": {oid: oid1, after: [][]string{{"update-index", "--split-index"}, {"update-index", "--add", "--cacheinfo", "160000," + oid1 + ",z/late"}}},
		"sha256":      {init: []string{"--object-format=sha256"}, oid: oid256},
	} {
		t.Run(name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			git(t, home, root, append([]string{"init", "-q"}, form.init...)...)
			if err := os.WriteFile(filepath.Join(root, "added"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"a/file", "a/b/c/d/e/f/g/h/sub", strings.Repeat("long/", 30) + "sub", "a/b/c/d/e/f/g/h/sub2", "b"} {
				mode := "160000"
				if strings.HasSuffix(p, "file") || p == "b" {
					mode = "100644"
				}
				git(t, home, root, "update-index", "--add", "--cacheinfo", mode+","+form.oid+","+p)
			}
			for _, args := range form.after {
				git(t, home, root, args...)
			}
			var want []string
			for _, line := range strings.Split(git(t, home, root, "ls-files", "-s"), "\n") {
				if mode, rest, ok := strings.Cut(line, " "); ok && mode == "160000" {
					_, path, _ := strings.Cut(rest, "\t")
					want = append(want, path)
				}
			}
			dir := filepath.Join(root, ".git")
			got, err := readGitlinks(filepath.Join(dir, "index"), objectHashSize(dir))
			slices.Sort(got)
			slices.Sort(want)
			if err != nil || !slices.Equal(got, want) || len(want) < 3 {
				t.Errorf("readGitlinks = %q, %v; git lists %q", got, err, want)
			}
		})
	}
}

// A damaged index (cut short) gives the gitlinks before the damage and
// an error; a missing one an error.
func TestReadGitlinksOfADamagedIndex(t *testing.T) {
	sandboxtest.NeedGit(t)
	root, home := t.TempDir(), t.TempDir()
	git(t, home, root, "init", "-q")
	const oid = "1111111111111111111111111111111111111111"
	git(t, home, root, "update-index", "--add", "--cacheinfo", "160000,"+oid+",a/sub")
	git(t, home, root, "update-index", "--add", "--cacheinfo", "160000,"+oid+",b/sub")
	index := filepath.Join(root, ".git", "index")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// The header, the first entry (padded to 72 bytes), part of the
	// second.
	if err := os.WriteFile(index, data[:12+72+50], 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := readGitlinks(index, 20); err == nil || !slices.Equal(got, []string{"a/sub"}) {
		t.Errorf("a damaged index: %q, %v", got, err)
	}
	if _, err := readGitlinks(filepath.Join(root, "none"), 20); err == nil {
		t.Error("a missing index: no error")
	}
}

// BenchmarkReadGitlinks reads an index of 100,000 files and 3 gitlinks,
// as a check does when a root's index changed:
//
//	go test -run '^$' -bench ReadGitlinks ./internal/sandbox/
func BenchmarkReadGitlinks(b *testing.B) {
	sandboxtest.NeedGit(b)
	root := b.TempDir()
	var entries strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&entries, "100644 %s\tsrc/%d/%d/file.go\n", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", i/100, i)
	}
	for i := range 3 {
		fmt.Fprintf(&entries, "160000 %s\tvendor/lib%d\n", gitlinkOID, i)
	}
	for _, args := range [][]string{{"init", "-q"}, {"update-index", "--index-info"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = root, gitEnv(b.TempDir()), strings.NewReader(entries.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v %s", args, err, out)
		}
	}
	index := filepath.Join(root, ".git", "index")
	for b.Loop() {
		if links, err := readGitlinks(index, 20); err != nil || len(links) != 3 {
			b.Fatal(links, err)
		}
	}
}
