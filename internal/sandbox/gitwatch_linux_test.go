package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A check reads only the directories made since the last one, as the
// kernel tells: none when nothing was made, the new ones when a
// repository was made (and it is set aside), and everything again when
// the kernel cannot tell.
func TestGitWatchReadsOnlyWhatWasMade(t *testing.T) {
	root := t.TempDir()
	for a := range 10 {
		for b := range 30 {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(a), fmt.Sprint(b)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	var warned []string
	w := newGitWatch(func() []string { return []string{root} }, func() []string { return []string{root} },
		func(s string) { warned = append(warned, s) })
	defer w.close()
	w.check()
	if w.read < 311 {
		t.Fatalf("the first check read %d directories, want the 311 there", w.read)
	}
	w.check()
	if w.read != 0 {
		t.Errorf("a check with nothing made read %d directories", w.read)
	}
	sub := filepath.Join(root, "3", "7", "new", "sub")
	for _, d := range []string{"hooks", "objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(sub, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, ".git", "config"), []byte("[core]\n\tfsmonitor = touch /tmp/x #\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.check()
	if w.read == 0 || w.read > 10 {
		t.Errorf("a check after a repository was made read %d directories, want the few made", w.read)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "core.fsmonitor") {
		t.Errorf("warned %q", warned)
	}
	if _, err := os.Stat(filepath.Join(sub, ".git"+MadeSuffix)); err != nil {
		t.Errorf("the repository made was not set aside: %v", err)
	}
	w.notify.close()
	w.notify = nil // the kernel can tell no more
	w.check()
	if w.read < 311 {
		t.Errorf("a check with no watch read %d directories, want all", w.read)
	}
}

// More harmless repositories made than a check keeps to read again:
// it keeps maxHarmless, and the next check walks, finding them all.
func TestGitWatchWalksPastTheHarmlessItKeeps(t *testing.T) {
	root := t.TempDir()
	w := newGitWatch(func() []string { return []string{root} }, func() []string { return []string{root} }, func(string) {})
	defer w.close()
	w.check()
	for i := range maxHarmless + 1 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(i), ".git", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.check()
	if len(w.harmless) != maxHarmless || !w.walkNext {
		t.Fatalf("after %d repositories made, %d kept to read again (walk next: %v), want %d and a walk", maxHarmless+1, len(w.harmless), w.walkNext, maxHarmless)
	}
	w.check()
	if w.read < maxHarmless+1 {
		t.Errorf("the check after read %d directories, want a walk of the %d", w.read, maxHarmless+1)
	}
}

// BenchmarkGitWatchCheck is a check with nothing made, in a workspace of
// 10,400 directories (past the walk's bound), through the kernel's word
// (watched) and by walking (walked, as each check did before, and does
// where the kernel cannot tell); then, the workspace a repository whose
// index holds 10,000 files and 3 submodules, none checked out, through
// the kernel's word (repository: the index is looked at, not read,
// while it is unchanged):
//
//	go test -run '^$' -bench GitWatchCheck ./internal/sandbox/
func BenchmarkGitWatchCheck(b *testing.B) {
	root := b.TempDir()
	for a := range 20 {
		for c := range 20 {
			for d := range 25 {
				if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(a), fmt.Sprint(c), fmt.Sprint(d)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, watched := range []bool{true, false} {
		b.Run(map[bool]string{true: "watched", false: "walked"}[watched], func(b *testing.B) {
			w := newGitWatch(func() []string { return []string{root} }, func() []string { return []string{root} }, nil)
			defer w.close()
			w.check()
			if !watched {
				w.notify.close()
				w.notify = nil
			}
			for b.Loop() {
				w.check()
			}
		})
	}
	b.Run("repository", func(b *testing.B) {
		sandboxtest.NeedGit(b)
		var entries strings.Builder
		for i := range 10000 {
			fmt.Fprintf(&entries, "100644 %s\tsrc/%d/file.go\n", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", i)
		}
		for i := range 3 {
			fmt.Fprintf(&entries, "160000 %s\tvendor/a/b/c/d/e/f/g/lib%d\n", gitlinkOID, i)
		}
		for _, args := range [][]string{{"init", "-q"}, {"update-index", "--index-info"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env, cmd.Stdin = root, gitEnv(b.TempDir()), strings.NewReader(entries.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %s: %v %s", args, err, out)
			}
		}
		w := newGitWatch(func() []string { return []string{root} }, func() []string { return []string{root} }, nil)
		defer w.close()
		w.check()
		time.Sleep(2 * stampGrain) // the index's read settles
		w.check()
		for b.Loop() {
			w.check()
		}
	})
}
